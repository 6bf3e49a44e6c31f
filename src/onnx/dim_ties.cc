// Dims computed from other dims (see dim_ties.h).
#include "hyperplan/adapters/dim_ties.h"

#include <fmt/format.h>

#include <cctype>
#include <optional>

#include "hyperplan/error.h"
#include "onnx/dim_expression.h"

namespace hyperplan {
namespace {

struct Tie {
  std::string name;
  std::string expression;
};

bool IsDimName(std::string_view name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) {
    return false;
  }
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-') {
      return false;
    }
  }
  return true;
}

// The tie, or the problem in `problem`.
std::optional<Tie> ParseTie(std::string_view text, std::string& problem) {
  const size_t equals = text.find('=');
  if (equals == std::string_view::npos) {
    problem = fmt::format("expected NAME=EXPRESSION, got '{}'", text);
    return std::nullopt;
  }
  Tie tie{std::string(text.substr(0, equals)), std::string(text.substr(equals + 1))};
  if (!IsDimName(tie.name)) {
    problem = fmt::format(
        "'{}' is not a dim name (letters, digits, '_', '.', '-'; not starting "
        "with a digit)",
        tie.name);
    return std::nullopt;
  }
  const onnx_import::DimExpressionResult parsed = onnx_import::EvaluateDimExpression(
      tie.expression, [](std::string_view) { return std::optional<int64_t>(1); });
  if (!parsed.parsed) {
    problem =
        fmt::format("'{}' is not an expression of dims and integers (+ - * / // % and parentheses)",
                    tie.expression);
    return std::nullopt;
  }
  return tie;
}

}  // namespace

std::string DimTieProblem(std::string_view text) {
  std::string problem;
  ParseTie(text, problem);
  return problem;
}

void BindTiedDims(const std::vector<std::string>& ties,
                  std::map<std::string, int64_t, std::less<>>& dims) {
  for (const std::string& text : ties) {
    std::string problem;
    const std::optional<Tie> tie = ParseTie(text, problem);
    if (!tie) throw Error(ErrorKind::kUsage, "--tie " + text + ": " + problem);
    const onnx_import::DimExpressionResult result =
        onnx_import::EvaluateDimExpression(tie->expression, [&](std::string_view name) {
          const auto it = dims.find(name);
          return it == dims.end() ? std::nullopt : std::optional<int64_t>(it->second);
        });
    if (!result.unbound.empty()) {
      throw Error(ErrorKind::kUsage,
                  fmt::format("--tie {}: '{}' is not bound (bind it with --dim {}=VALUE)", text,
                              result.unbound.front(), result.unbound.front()));
    }
    if (!result.value || *result.value < 0) {
      throw Error(ErrorKind::kUsage,
                  fmt::format("--tie {}: the expression is {} with the dims bound here", text,
                              result.value ? fmt::format("negative ({})", *result.value)
                                           : std::string("not a whole number")));
    }
    const auto [it, inserted] = dims.emplace(tie->name, *result.value);
    if (!inserted && it->second != *result.value) {
      throw Error(ErrorKind::kUsage,
                  fmt::format("--tie {}: '{}' is also bound to {}, and the tie makes it {}", text,
                              tie->name, it->second, *result.value));
    }
  }
}

}  // namespace hyperplan
