/* The decimal integers of a trace line (ranks, tags, sizes), read without std::from_chars: ActionParser.cpp reads
 * the rank that starts a line with it, ActionParserArguments.cpp an action's integers. */
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>

namespace progsim::trace {

/**
 * A whole word as a decimal integer, read as std::from_chars reads it (an optional '-', then digits; nothing else),
 * false if it is not one or does not fit in T. Ranks, tags and sizes fill a trace: GCC 12's from_chars, written for
 * any base, took more than the rest of a line's parsing.
 */
template <typename T> bool read_decimal(std::string_view word, T& value)
{
  const bool negative = not word.empty() && word.front() == '-';
  const size_t first  = negative ? 1 : 0;
  if (word.size() == first)
    return false;
  uint64_t magnitude = 0;
  for (size_t i = first; i < word.size(); i++) {
    const auto digit = static_cast<unsigned>(word[i] - '0');
    if (digit > 9 || __builtin_mul_overflow(magnitude, 10u, &magnitude) ||
        __builtin_add_overflow(magnitude, digit, &magnitude))
      return false;
  }
  const auto most = static_cast<uint64_t>(std::numeric_limits<T>::max());
  if (magnitude > most + (negative ? 1 : 0))
    return false;
  value = negative ? static_cast<T>(0 - magnitude) : static_cast<T>(magnitude);
  return true;
}

} // namespace progsim::trace
