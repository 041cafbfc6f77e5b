/* One trace file's lines, read a block at a time from where the last read stopped. */
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace progsim::trace {

/**
 * The lines of one file, plain text or gzip-compressed (told apart by gzip's magic bytes), read in blocks.
 * Between two reads it can let go of its buffer and, for a plain file, of its descriptor (`pause`): a replay keeps
 * one reader per rank, so neither memory nor the open descriptors may grow with the trace.
 */
class LineReader {
public:
  /** `block_bytes`: how much one read asks for. `keep_open`: whether a paused plain file keeps its descriptor. */
  LineReader(std::string path, size_t block_bytes, bool keep_open);
  ~LineReader();
  LineReader(const LineReader&)            = delete;
  LineReader& operator=(const LineReader&) = delete;

  /** The next line, without its newline; false at the end of the file. The view lives until the next call. */
  bool next(std::string_view& line);
  /** The number of the line `next` gave last (the first line is 1). */
  uint64_t line_number() const { return line_; }
  const std::string& path() const { return path_; }
  /** Frees the buffer (and the descriptor, unless kept open) until the next call of `next`. */
  void pause();

private:
  void open();
  /** Appends one more block to the unread bytes; false once the file has no more. */
  bool fill();

  std::string path_;
  size_t block_;
  bool keep_open_;
  int fd_           = -1;      // a plain file
  void* gz_         = nullptr; // a gzFile, open from the first read to the last: it cannot seek back cheaply
  bool gzip_        = false;
  bool opened_      = false;
  uint64_t offset_  = 0;       // a plain file's offset of buffer_[0]
  uint64_t file_bytes_ = 0;    // a regular file's size when opened (0: unknown)
  std::string buffer_;
  size_t pos_       = 0;       // the first unread byte of buffer_
  uint64_t line_    = 0;
  bool at_end_      = false;
};

} // namespace progsim::trace
