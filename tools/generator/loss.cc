#include "loss.h"

namespace hyperplan::gen {

LossResult CrossEntropy(TrainContext& t, const std::string& logits, const std::string& labels) {
  GraphBuilder& g = t.graph;
  const std::string p = "/loss";
  const std::string log_probs =
      g.Op("LogSoftmax", {logits}, p + "/LogSoftmax", {AttrInt("axis", -1)});
  // one_hot(label) as (label == id) over the ids 0..vocab-1: OneHot's shape inference in
  // ONNX 1.12 leaves the depth unknown, Range's reads its constant inputs.
  const std::string ids =
      g.Op("Range", {g.Int64Scalar(0), g.Int64Scalar(t.config.vocab), g.Int64Scalar(1)},
           p + "/ids/Range");
  const std::string column = g.Op("Unsqueeze", {labels, g.Int64s({-1})}, p + "/Unsqueeze");
  const std::string matches = g.Op("Equal", {column, ids}, p + "/Equal");
  const std::string one_hot =
      g.Op("Cast", {matches}, p + "/Cast", {AttrInt("to", OnnxType(g.dtype()))});
  const std::string picked = g.Op("Mul", {one_hot, log_probs}, p + "/Mul");
  const std::string total = g.Op("ReduceSum", {picked}, p + "/ReduceSum", {AttrInt("keepdims", 0)});
  LossResult result;
  result.loss = g.Op("Neg", {total}, p + "/Neg", {}, "loss");
  const std::string probs = g.Op("Exp", {log_probs}, p + "/grad/Exp");
  result.logits_grad = g.Op("Sub", {probs, one_hot}, p + "/grad/Sub");
  return result;
}

}  // namespace hyperplan::gen
