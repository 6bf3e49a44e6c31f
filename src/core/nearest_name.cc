// Did-you-mean by edit distance (see nearest_name.h).
#include "hyperplan/nearest_name.h"

#include <algorithm>

namespace hyperplan {

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

std::optional<size_t> NearestName(std::string_view name, const std::vector<std::string_view>& known,
                                  size_t max_edits) {
  std::optional<size_t> nearest;
  size_t nearest_distance = max_edits + 1;
  for (size_t i = 0; i < known.size(); ++i) {
    const size_t distance = EditDistance(name, known[i]);
    if (distance < nearest_distance) {
      nearest = i;
      nearest_distance = distance;
    }
  }
  return nearest;
}

std::optional<size_t> OnlyNameContaining(std::string_view name,
                                         const std::vector<std::string_view>& known) {
  if (name.empty()) return std::nullopt;
  std::optional<size_t> containing;
  for (size_t i = 0; i < known.size(); ++i) {
    if (known[i].find(name) == std::string_view::npos) continue;
    if (containing) return std::nullopt;
    containing = i;
  }
  return containing;
}

}  // namespace hyperplan
