#include "trace/Datatype.hpp"

#include <array>
#include <charconv>

namespace progsim::trace {

namespace {
// Indexed by SMPI's datatype id (0 = MPI_DOUBLE ... 59 = MPI_COUNT); sizes of the C types on x86-64.
// 55 and 56 are MPI_UB and MPI_LB, which carry no data.
constexpr std::array<int, 60> kSizes = {
    8,  4,  1,  2,  8,  4,  1,  8, 1, 1,      // double int char short long float byte long-long schar uchar
    2,  4,  8,  8,  16, 4,  1,  1, 2, 4,      // ushort unsigned ulong ull long-double wchar bool int8 int16 int32
    8,  1,  2,  4,  8,  8,  16, 32, 8, 8,     // int64 uint8 uint16 uint32 uint64 cfloat cdouble cldouble aint offset
    8,  16, 16, 8,  8,  8,  16, 16, 4, 4,     // float_int long_int double_int short_int 2int 2float 2double 2long real real4
    8,  16, 8,  16, 16, 4,  2,  4, 8, 16,     // real8 real16 complex8 complex16 complex32 integer1..integer16
    32, 1,  8,  16, 32, 0,  0,  1, 8, 8};     // ldouble_int cxx_bool cxx complexes ub lb packed ptr count
} // namespace

std::optional<int> datatype_size(std::string_view id)
{
  if (id == "-1")
    return 0;
  int value = -1;
  auto [end, error] = std::from_chars(id.data(), id.data() + id.size(), value);
  if (error != std::errc() || end != id.data() + id.size() || value < 0 || value >= static_cast<int>(kSizes.size()))
    return std::nullopt;
  return kSizes[value];
}

} // namespace progsim::trace
