/* Sizes of the MPI datatype ids written by smpirun -trace-ti. */
#pragma once

#include <optional>
#include <string_view>

namespace progsim::trace {

/**
 * Size in bytes of the predefined MPI datatype with this trace id (SMPI's encoding, smpi_datatype.cpp).
 * Derived datatypes are traced as -1 and replayed as 0 bytes, as SMPI does.
 * Returns nothing for an id SMPI does not define.
 */
std::optional<int> datatype_size(std::string_view id);

} // namespace progsim::trace
