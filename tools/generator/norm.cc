#include "norm.h"

namespace hyperplan::gen {

namespace {

std::string NormWeight(DecoderContext& ctx, const std::string& name, int64_t width = 0) {
  GraphBuilder& g = ctx.graph;
  WeightStore* store = &g.weights();
  const int64_t size = width > 0 ? width : ctx.config.hidden;
  return g.Weight(name, {size}, [store, name, size] {
    std::vector<float> values = store->Uniform(name, size, 0.1f);
    for (float& v : values) v += 1.0f;
    return values;
  });
}

}  // namespace

std::string RmsNorm(DecoderContext& ctx, const std::string& x, const std::string& weight_name,
                    const std::string& p, int64_t width) {
  GraphBuilder& g = ctx.graph;
  const std::string weight = NormWeight(ctx, weight_name, width);
  const std::string squared = g.Op("Mul", {x, x}, p + "/Mul");
  const std::string mean = g.Op("ReduceMean", {squared}, p + "/ReduceMean",
                                {AttrInts("axes", {-1}), AttrInt("keepdims", 1)});
  const std::string shifted =
      g.Op("Add", {mean, g.FloatScalar(ctx.config.rms_epsilon, g.dtype())}, p + "/Add");
  const std::string rms = g.Op("Sqrt", {shifted}, p + "/Sqrt");
  const std::string normalized = g.Op("Div", {x, rms}, p + "/Div");
  return g.Op("Mul", {normalized, weight}, p + "/Mul_1");
}

std::string SimplifiedLayerNorm(DecoderContext& ctx, const std::string& x,
                                const std::string& weight_name, const std::string& node_name) {
  GraphBuilder& g = ctx.graph;
  const std::string weight = NormWeight(ctx, weight_name);
  const std::string out = node_name + "/output_0";
  g.OpOutputs("SimplifiedLayerNormalization", "", {x, weight}, {out}, node_name,
              {AttrInt("axis", -1), AttrFloat("epsilon", ctx.config.rms_epsilon),
               AttrInt("stash_type", 1)});
  return out;
}

SkipNormResult SkipSimplifiedLayerNorm(DecoderContext& ctx, const std::string& x,
                                       const std::string& skip, const std::string& weight_name,
                                       const std::string& node_name) {
  GraphBuilder& g = ctx.graph;
  const std::string weight = NormWeight(ctx, weight_name);
  SkipNormResult result{node_name + "/output_0", node_name + "/output_3"};
  // Outputs 1 and 2 (mean, inverse std) are training-only and left absent.
  g.OpOutputs("SkipSimplifiedLayerNormalization", kMsDomain, {x, skip, weight},
              {result.normed, "", "", result.residual}, node_name,
              {AttrFloat("epsilon", ctx.config.rms_epsilon)});
  return result;
}

}  // namespace hyperplan::gen
