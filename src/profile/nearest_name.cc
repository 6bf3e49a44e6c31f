// Did-you-mean suggestions (see nearest_name.h).
#include "profile/nearest_name.h"

#include <algorithm>
#include <vector>

namespace hyperplan::profile {

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      const size_t substitution = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitution});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::optional<std::string_view> NearestName(std::string_view text,
                                            std::span<const std::string_view> candidates,
                                            size_t max_edits) {
  std::optional<std::string_view> nearest;
  size_t nearest_distance = max_edits + 1;
  for (std::string_view candidate : candidates) {
    const size_t distance = EditDistance(text, candidate);
    if (distance < nearest_distance) {
      nearest = candidate;
      nearest_distance = distance;
    }
  }
  return nearest;
}

std::optional<std::string_view> OnlyNameContaining(std::string_view text,
                                                   std::span<const std::string_view> candidates) {
  if (text.empty()) return std::nullopt;
  std::optional<std::string_view> containing;
  for (std::string_view candidate : candidates) {
    if (candidate.find(text) == std::string_view::npos) continue;
    if (containing) return std::nullopt;
    containing = candidate;
  }
  return containing;
}

}  // namespace hyperplan::profile
