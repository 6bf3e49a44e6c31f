// Dim expressions: integer arithmetic over symbolic dimension names, as exporters write them.
//
// Exporters name dims "batch", "past_sequence_length + 1", "2*s0" or "s1//2". This module reads
// such text as an expression of + - * / // % and parentheses over integer literals and names
// (letters, digits, '_', '.', and '-' between two of those, so "seq-len" is one name; not
// starting with a digit), evaluates it under a binding, and lists the names it needs. "/" must
// divide exactly; "//" floors. Cost: linear in the text.
// Limits: no functions (floor(), ceiling(), Max()), and at most 256 characters; other text is
// an opaque name as a whole.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hyperplan::onnx_import {

struct DimExpressionResult {
  bool parsed = false;               // false: not an expression; treat the text as one name
  std::optional<int64_t> value;      // set when every name was bound and arithmetic was exact
  std::vector<std::string> unbound;  // names without a value, in order of first appearance
};

// `lookup` returns the value bound to a name, if any.
DimExpressionResult EvaluateDimExpression(
    std::string_view text, const std::function<std::optional<int64_t>(std::string_view)>& lookup);

}  // namespace hyperplan::onnx_import
