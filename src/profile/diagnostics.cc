// Diagnostics: collection and formatting of profile problems (see diagnostics.h).
#include "profile/diagnostics.h"

#include <fmt/format.h>

#include <algorithm>

namespace hyperplan::profile {

void Diagnostics::Report(const YAML::Mark& mark, std::string problem) {
  const bool known = mark.line >= 0 && mark.column >= 0;
  problems_.push_back({known ? mark.line + 1 : 1, known ? mark.column + 1 : 1, std::move(problem)});
}

std::string Diagnostics::Format() const {
  std::vector<Problem> sorted = problems_;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Problem& a, const Problem& b) {
    return a.line != b.line ? a.line < b.line : a.column < b.column;
  });
  std::string message;
  for (const Problem& problem : sorted) {
    if (!message.empty()) message += '\n';
    message += fmt::format("{}:{}:{}: {}", source_, problem.line, problem.column, problem.text);
  }
  return message;
}

}  // namespace hyperplan::profile
