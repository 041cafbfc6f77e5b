/* Parsing of one trace line: its words, and the arguments of its action with file:line in every error. */
#pragma once

#include "trace/Action.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace progsim::trace {

/** The words of a line, split on spaces and tabs (runs count as one separator, as in SMPI's reader). */
std::vector<std::string_view> split_words(std::string_view line);
/** The same, into `words` (cleared first): no allocation once `words` has grown. */
void split_words(std::string_view line, std::vector<std::string_view>& words);
/** Blank lines and lines whose first non-blank character is '#' carry no action. */
bool is_blank_or_comment(std::string_view line);

/**
 * The action of a line whose first two words are the rank and a known action `type`. Sizes become bytes with the
 * rank's current default datatype (`default_type_size`, which an `init` line changes); per-rank vectors of the
 * v-collectives go to `into`. Throws TraceError naming file:line, the problem and the expected form.
 */
Action parse_action(const std::string& file, uint32_t line, const std::vector<std::string_view>& words,
                    ActionType type, int world_size, int& default_type_size, CountPool& into);

/**
 * Parses one line of `rank`'s trace into `out`. Returns false for a line that carries nothing to replay (blank,
 * comment, location); throws TraceError naming file:line for a line that is not a valid action of that rank.
 */
bool parse_line(std::string_view line, const std::string& file, uint32_t number, int rank, int world_size,
                int& default_type_size, CountPool& counts, Action& out);

} // namespace progsim::trace
