// Did-you-mean suggestions: the known name nearest a mistyped one, by Levenshtein distance.
//
// Used for unknown profile keys ("capcity" -> "capacity") and unknown shipped-profile names
// ("h100sxm" -> "h100-sxm"). Cost: O(|a| * |b|) per pair; names are short (< 30 characters)
// and the candidate lists small (tens). Limits: byte-wise, so a non-ASCII character counts as
// several edits.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace hyperplan::profile {

size_t EditDistance(std::string_view a, std::string_view b);

// The candidate with the fewest edits from `text`, if within `max_edits` (the first on ties).
std::optional<std::string_view> NearestName(std::string_view text,
                                            std::span<const std::string_view> candidates,
                                            size_t max_edits = 2);

// The one candidate that contains `text` ("h100" in "h100-sxm"); nullopt when none or several
// do, or `text` is empty. For names, where a shortened spelling is many edits away.
std::optional<std::string_view> OnlyNameContaining(std::string_view text,
                                                   std::span<const std::string_view> candidates);

}  // namespace hyperplan::profile
