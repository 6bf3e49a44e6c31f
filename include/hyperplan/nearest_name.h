// Did-you-mean: the known name a typo most likely meant.
//
// Used wherever a user names something that must exist: profile keys ("capcity" -> capacity),
// --dim symbols ("bach" -> batch). The nearest name by Levenshtein distance (insertions,
// deletions and substitutions of one character each), within `max_edits`; ties go to the
// earlier name, so suggestions are deterministic. Cost: O(|name| * |known name|) per known
// name, for the short names it is meant for.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace hyperplan {

size_t EditDistance(std::string_view a, std::string_view b);

// The index into `known` of the name nearest to `name` within `max_edits` edits, or nullopt.
// An exact match is distance 0, so callers look for exact matches first if they differ.
std::optional<size_t> NearestName(std::string_view name, const std::vector<std::string_view>& known,
                                  size_t max_edits = 2);

// The index of the one name in `known` that contains `name` ("h100" in "h100-sxm"); nullopt
// when none or several do, or `name` is empty. For shortened spellings, many edits away.
std::optional<size_t> OnlyNameContaining(std::string_view name,
                                         const std::vector<std::string_view>& known);

}  // namespace hyperplan
