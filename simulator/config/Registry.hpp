/* Named kinds that register themselves from their own files: progress mechanisms, contention policies. */
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace progsim {

/**
 * The kinds of one family (a `Kind` has a `name` and a `position`), each added before main() runs by a static
 * `Registration` in the file that defines it, in no particular order; listed by position, then name.
 */
template <class Kind> class Registry {
public:
  static void add(Kind kind) { all().push_back(std::move(kind)); }

  static std::vector<const Kind*> listed()
  {
    std::vector<const Kind*> kinds;
    for (auto const& kind : all())
      kinds.push_back(&kind);
    std::sort(kinds.begin(), kinds.end(), [](const Kind* a, const Kind* b) {
      return std::tie(a->position, a->name) < std::tie(b->position, b->name);
    });
    return kinds;
  }

  /** The kind called `name`; otherwise throws std::invalid_argument: "<unknown> 'name' (expected one of: ...)". */
  static const Kind& named(const std::string& name, const std::string& unknown)
  {
    std::string known;
    for (const Kind* kind : listed()) {
      if (kind->name == name)
        return *kind;
      known += (known.empty() ? "" : ", ") + kind->name;
    }
    throw std::invalid_argument(unknown + " '" + name + "' (expected one of: " + known + ")");
  }

private:
  static std::vector<Kind>& all()
  {
    static std::vector<Kind> kinds;
    return kinds;
  }
};

/** Adds a kind to its registry: one static object in the kind's file. */
template <class Kind> class Registration {
public:
  explicit Registration(Kind kind) { Registry<Kind>::add(std::move(kind)); }
};

} // namespace progsim
