#include "trace/LineReader.hpp"
#include "trace/TraceError.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace progsim::trace {

namespace {
std::string system_error(const std::string& path, const std::string& what)
{
  return path + ": " + what + " (" + std::strerror(errno) + ")";
}
} // namespace

LineReader::LineReader(std::string path, size_t block_bytes, bool keep_open)
    : path_(std::move(path)), block_(block_bytes), keep_open_(keep_open)
{
}

LineReader::~LineReader()
{
  if (fd_ >= 0)
    ::close(fd_);
  if (gz_ != nullptr)
    gzclose(static_cast<gzFile>(gz_));
}

void LineReader::open()
{
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0)
    throw TraceError(system_error(path_, errno == EMFILE ? "cannot open one more trace file: raise the limit of "
                                                           "open files (ulimit -n) or use one shared trace file"
                                                         : "cannot read the trace file"));
  struct stat status;
  if (::fstat(fd_, &status) == 0 && S_ISREG(status.st_mode))
    file_bytes_ = static_cast<uint64_t>(status.st_size);
  if (not opened_) { // the first time: plain or gzip?
    unsigned char magic[2] = {0, 0};
    gzip_   = ::pread(fd_, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    opened_ = true;
  }
  if (gzip_) {
    gz_ = gzdopen(fd_, "rb");
    if (gz_ == nullptr)
      throw TraceError(path_ + ": cannot read the gzip-compressed trace file");
    fd_ = -1; // zlib owns it now
  }
}

bool LineReader::fill()
{
  if (at_end_)
    return false;
  if (fd_ < 0 && gz_ == nullptr)
    open();
  buffer_.erase(0, pos_);
  offset_ += pos_;
  pos_ = 0;
  const size_t before = buffer_.size();
  size_t want         = std::max(block_, before); // a line longer than a block: double, not crawl
  // A plain file asks for little more than it held when opened: the buffer is zeroed as it grows, and the check's
  // 1 MiB block per 2 KiB rank file cost more than reading the whole trace. (A file grown since is read 4 KiB a time.)
  if (not gzip_ && file_bytes_ > 0) {
    const uint64_t read_to = offset_ + before;
    const uint64_t left    = file_bytes_ > read_to ? file_bytes_ - read_to : 0;
    want                   = static_cast<size_t>(std::min<uint64_t>(want, std::max<uint64_t>(left + 1, 4096)));
  }
  buffer_.resize(before + want);
  ssize_t got;
  if (gzip_) {
    got = gzread(static_cast<gzFile>(gz_), buffer_.data() + before, static_cast<unsigned>(want));
    if (got < 0) {
      int code;
      const char* message = gzerror(static_cast<gzFile>(gz_), &code);
      throw TraceError(path_ + ": cannot decompress the trace file (" + message + ")");
    }
  } else {
    got = ::pread(fd_, buffer_.data() + before, want, static_cast<off_t>(offset_ + before));
    if (got < 0)
      throw TraceError(system_error(path_, "cannot read the trace file"));
  }
  buffer_.resize(before + static_cast<size_t>(got));
  at_end_ = got == 0;
  return got > 0;
}

bool LineReader::next(std::string_view& line)
{
  size_t scanned = 0; // unread bytes already known to hold no newline
  for (;;) {
    size_t newline = buffer_.find('\n', pos_ + scanned);
    if (newline != std::string::npos) {
      line = std::string_view(buffer_).substr(pos_, newline - pos_);
      pos_ = newline + 1;
      line_++;
      return true;
    }
    scanned = buffer_.size() - pos_;
    if (not fill()) { // the last line may end without a newline
      if (pos_ >= buffer_.size())
        return false;
      line = std::string_view(buffer_).substr(pos_);
      pos_ = buffer_.size();
      line_++;
      return true;
    }
  }
}

void LineReader::pause()
{
  if (gzip_) { // keep the unread bytes: they cannot be read again
    buffer_.erase(0, pos_);
    pos_ = 0;
    buffer_.shrink_to_fit();
    return;
  }
  // A plain file reads them again from their offset.
  offset_ += pos_;
  pos_ = 0;
  buffer_.clear();
  buffer_.shrink_to_fit();
  at_end_ = false;
  if (not keep_open_ && fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

} // namespace progsim::trace
