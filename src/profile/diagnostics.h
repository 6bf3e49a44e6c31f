// Diagnostics: every problem found in one profile file, each tied to a line and column.
//
// Readers report and carry on, so one run shows the user all of a file's mistakes. The
// message lists them sorted by position (ties keep the order they were found), one per line,
// as "source:line:column: problem". Cost: one string per problem.
#pragma once

#include <yaml-cpp/mark.h>

#include <string>
#include <utility>
#include <vector>

namespace hyperplan::profile {

class Diagnostics {
 public:
  explicit Diagnostics(std::string source) : source_(std::move(source)) {}

  // `mark` is yaml-cpp's (0-based); a null mark is reported at 1:1, the start of the file.
  void Report(const YAML::Mark& mark, std::string problem);

  bool empty() const { return problems_.empty(); }
  const std::string& source() const { return source_; }

  // All problems, one per line, without a trailing newline.
  std::string Format() const;

 private:
  struct Problem {
    int line;  // 1-based
    int column;
    std::string text;
  };
  std::string source_;
  std::vector<Problem> problems_;
};

}  // namespace hyperplan::profile
