// Unknown sizes: which values of unknown size could change a plan, and the one-line refusal
// `plan` and `fit` give for them (unless --allow-unknown, which plans them as 0 bytes).
//
// A value of unknown size counts when its bytes would take room on some tier at some step. It
// does not count when (rule, in order):
//   - it depends on a declared symbol no --dim bound: that has its own error, naming the dim;
//   - it is a string tensor or not a tensor (sequence, map, optional): no shape rule or --dim
//     can size it, and no LLM export keeps its tensors in one;
//   - it is the output of Shape or Size: a vector of at most a few dozen int64s, unknown only
//     because its input's rank is, and that input is counted itself.
// Everything else counts, whatever made it unknown (an operator with no shape rule, a rule
// that could not finish, an unknown element type). The refusal names the first counted value
// in import order with its producer and why, and each operator with no rule once with its
// node count. Cost: constant per value; the first value's strings are kept.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace hyperplan::onnx_import {

struct UnknownSizeValue {
  std::string where;     // the enclosing bodies, "" for the model's graph
  std::string name;      // the value
  std::string producer;  // "node 'N' (com.microsoft.Attention)", "" for an input
  std::string op_key;    // "com.microsoft.Attention", "Add"; "" for an input
  std::string op_type;   // "Attention"
  std::string reason;    // the sizing verdict ("its type is unknown", ...)
  bool is_string_or_not_tensor = false;
};

class UnknownSizes {
 public:
  // Records one value of unknown size; keeps only the first that counts.
  void Add(UnknownSizeValue value);

  int64_t counted() const { return counted_; }

  // "47 values of unknown size (first: 'X' from node 'N' (com.microsoft.Attention): no shape
  // rule for com.microsoft.Attention); no shape rule for com.microsoft.Attention (12 nodes);
  // --allow-unknown plans them as 0 bytes". `ops_without_rule` maps "domain.op" to its node
  // count, as shape propagation found them. Only when counted() > 0.
  std::string Problem(const std::map<std::string, int64_t>& ops_without_rule) const;

 private:
  int64_t counted_ = 0;
  UnknownSizeValue first_;
};

// Whether a value of unknown size can change a plan (the rule above).
bool UnknownSizeCounts(const UnknownSizeValue& value);

}  // namespace hyperplan::onnx_import
