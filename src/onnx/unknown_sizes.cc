// The unknown-size refusal (see unknown_sizes.h).
#include "onnx/unknown_sizes.h"

#include <fmt/format.h>

#include <utility>
#include <vector>

namespace hyperplan::onnx_import {

bool UnknownSizeCounts(const UnknownSizeValue& value) {
  if (value.is_string_or_not_tensor) return false;
  // ai.onnx Shape and Size only: op_key carries the domain for any other.
  return value.op_key != "Shape" && value.op_key != "Size";
}

void UnknownSizes::Add(UnknownSizeValue value) {
  if (!UnknownSizeCounts(value)) return;
  if (counted_++ == 0) first_ = std::move(value);
}

std::string UnknownSizes::Problem(const std::map<std::string, int64_t>& ops_without_rule) const {
  const auto first_rule = ops_without_rule.find(first_.op_key);
  const std::string why =
      first_rule != ops_without_rule.end() ? "no shape rule for " + first_.op_key : first_.reason;
  const std::string from = first_.producer.empty() ? "" : " from " + first_.producer;
  std::vector<std::string> rules;
  for (const auto& [op, count] : ops_without_rule) {
    rules.push_back(fmt::format("{} ({} {})", op, count, count == 1 ? "node" : "nodes"));
  }
  const std::string without_rules =
      rules.empty() ? "" : fmt::format("; no shape rule for {}", fmt::join(rules, ", "));
  return fmt::format(
      "{} {} of unknown size (first: {}'{}'{}: {}){}; --allow-unknown plans them as 0 bytes",
      counted_, counted_ == 1 ? "value" : "values", first_.where, first_.name, from, why,
      without_rules);
}

}  // namespace hyperplan::onnx_import
