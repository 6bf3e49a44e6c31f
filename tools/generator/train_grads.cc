#include "train_grads.h"

namespace hyperplan::gen {

namespace {

// [batch, sequence, features] -> [tokens, features], made once per activation.
std::string Rows(TrainContext& t, const std::string& x, int64_t features, const std::string& p) {
  auto it = t.rows_of.find(x);
  if (it != t.rows_of.end()) return it->second;
  const std::string rows = t.graph.Op("Reshape", {x, t.graph.Int64s({-1, features})}, p);
  t.rows_of[x] = rows;
  return rows;
}

std::string ShapeOf(TrainContext& t, const std::string& x, const std::string& p) {
  auto it = t.shape_of.find(x);
  if (it != t.shape_of.end()) return it->second;
  const std::string shape = t.graph.Op("Shape", {x}, p);
  t.shape_of[x] = shape;
  return shape;
}

std::string Transposed(GraphBuilder& g, const std::string& x, std::vector<int64_t> perm,
                       const std::string& p) {
  return g.Op("Transpose", {x}, p, {AttrInts("perm", perm)});
}

}  // namespace

std::string LinearBackward(TrainContext& t, const std::string& x, const std::string& weight,
                           int64_t in, int64_t out, const std::string& dy, const std::string& p) {
  GraphBuilder& g = t.graph;
  const std::string x_rows = Rows(t, x, in, p + "/x_rows/Reshape");
  const std::string dy_rows = g.Op("Reshape", {dy, g.Int64s({-1, out})}, p + "/dy_rows/Reshape");
  const std::string grad = weight + ".grad";
  g.Op("Gemm", {x_rows, dy_rows}, p + "/weight_grad/Gemm", {AttrInt("transA", 1)}, grad);
  t.grads.push_back({weight, grad, {in, out}});
  const std::string dx_rows =
      g.Op("Gemm", {dy_rows, weight}, p + "/input_grad/Gemm", {AttrInt("transB", 1)});
  return g.Op("Reshape", {dx_rows, ShapeOf(t, x, p + "/x_shape/Shape")}, p + "/input_grad/Reshape");
}

std::string RmsNormBackward(TrainContext& t, const NormStash& s, const std::string& dy,
                            const std::string& p) {
  GraphBuilder& g = t.graph;
  // y = n * w with n = x / r: dw = sum over tokens of dy * n.
  const std::string dy_n = g.Op("Mul", {dy, s.normalized}, p + "/weight_grad/Mul");
  const std::string grad = s.weight + ".grad";
  g.Op("ReduceSum", {dy_n, g.Int64s({0, 1})}, p + "/weight_grad/ReduceSum",
       {AttrInt("keepdims", 0)}, grad);
  t.grads.push_back({s.weight, grad, {t.config.hidden}});
  // dx = (dn - n * mean(dn * n)) / r, with dn = dy * w.
  const std::string dn = g.Op("Mul", {dy, s.weight}, p + "/Mul");
  const std::string dn_n = g.Op("Mul", {dn, s.normalized}, p + "/Mul_1");
  const std::string mean = g.Op("ReduceMean", {dn_n}, p + "/ReduceMean",
                                {AttrInts("axes", {-1}), AttrInt("keepdims", 1)});
  const std::string along = g.Op("Mul", {s.normalized, mean}, p + "/Mul_2");
  const std::string centred = g.Op("Sub", {dn, along}, p + "/Sub");
  return g.Op("Div", {centred, s.rms}, p + "/Div");
}

std::string RopeBackward(TrainContext& t, const std::string& dy, const std::string& p) {
  GraphBuilder& g = t.graph;
  const int64_t half = t.config.head_dim / 2;
  // y = x * cos + rotate_half(x) * sin, and rotate_half's transpose maps [a, b] to [b, -a].
  const std::string through_cos = g.Op("Mul", {dy, t.ctx.rope_cos}, p + "/Mul");
  const std::string through_sin = g.Op("Mul", {dy, t.ctx.rope_sin}, p + "/Mul_1");
  const std::vector<std::string> halves = GraphBuilder::OutputNames(p + "/Split", 2);
  g.OpOutputs("Split", "", {through_sin, g.Int64s({half, half})}, halves, p + "/Split",
              {AttrInt("axis", -1)});
  const std::string negated = g.Op("Neg", {halves[0]}, p + "/Neg");
  const std::string back =
      g.Op("Concat", {halves[1], negated}, p + "/Concat", {AttrInt("axis", -1)});
  return g.Op("Add", {through_cos, back}, p + "/Add");
}

std::string MergeHeadsGrad(TrainContext& t, const std::string& dy, int64_t heads,
                           const std::string& p) {
  GraphBuilder& g = t.graph;
  const std::string by_token = Transposed(g, dy, {0, 2, 1, 3}, p + "/Transpose");
  return g.Op("Reshape", {by_token, g.Int64s({0, 0, heads * t.config.head_dim})}, p + "/Reshape");
}

std::string SplitHeadsGrad(TrainContext& t, const std::string& dy, const std::string& p) {
  GraphBuilder& g = t.graph;
  const std::string shaped =
      g.Op("Reshape", {dy, g.Int64s({0, 0, t.config.heads, t.config.head_dim})}, p + "/Reshape");
  return Transposed(g, shaped, {0, 2, 1, 3}, p + "/Transpose");
}

std::string RepeatKvBackward(TrainContext& t, const std::string& dy, bool keys,
                             const std::string& p) {
  GraphBuilder& g = t.graph;
  const ModelConfig& c = t.config;
  const int64_t groups = c.heads / c.kv_heads;
  if (groups == 1) return keys ? Transposed(g, dy, {0, 1, 3, 2}, p + "/Transpose") : dy;
  // Undo the last Transpose ((0, 2, 3, 1) for keys, (0, 2, 1, 3) for values): per token.
  const std::string by_token =
      Transposed(g, dy, keys ? std::vector<int64_t>{0, 3, 1, 2} : std::vector<int64_t>{0, 2, 1, 3},
                 p + "/Transpose");
  const std::string grouped =
      g.Op("Reshape", {by_token, g.Int64s({0, 0, c.kv_heads, groups, c.head_dim})}, p + "/Reshape");
  const std::string summed =
      g.Op("ReduceSum", {grouped, g.Int64s({3})}, p + "/ReduceSum", {AttrInt("keepdims", 0)});
  return Transposed(g, summed, {0, 2, 1, 3}, p + "/Transpose_1");
}

std::string SoftmaxBackward(TrainContext& t, const std::string& probs, const std::string& dy,
                            const std::string& p) {
  GraphBuilder& g = t.graph;
  // dx = p * (dy - sum(dy * p, last axis)).
  const std::string weighted = g.Op("Mul", {dy, probs}, p + "/Mul");
  const std::string total =
      g.Op("ReduceSum", {weighted, g.Int64s({-1})}, p + "/ReduceSum", {AttrInt("keepdims", 1)});
  const std::string centred = g.Op("Sub", {dy, total}, p + "/Sub");
  return g.Op("Mul", {probs, centred}, p + "/Mul_1");
}

}  // namespace hyperplan::gen
