#include "heads.h"

namespace hyperplan::gen {

std::string SplitHeads(GraphBuilder& g, const std::string& x, int64_t heads, int64_t head_dim,
                       const std::string& p, const std::string& output) {
  const std::string shaped =
      g.Op("Reshape", {x, g.Int64s({0, 0, heads, head_dim})}, p + "/Reshape");
  return g.Op("Transpose", {shaped}, p + "/Transpose", {AttrInts("perm", {0, 2, 1, 3})}, output);
}

// Moving total ahead of the heads first lets every Reshape copy batch and total with 0 entries,
// so shapes stay symbolic instead of needing a runtime Shape.
std::string RepeatKv(DecoderContext& ctx, const std::string& cache, bool keys,
                     const std::string& p) {
  GraphBuilder& g = ctx.graph;
  const ModelConfig& c = ctx.config;
  const int64_t groups = c.heads / c.kv_heads;
  if (groups == 1) {
    return keys ? g.Op("Transpose", {cache}, p + "/Transpose", {AttrInts("perm", {0, 1, 3, 2})})
                : cache;
  }
  const std::string by_token =
      g.Op("Transpose", {cache}, p + "/Transpose", {AttrInts("perm", {0, 2, 1, 3})});
  const std::string widened = g.Op("Unsqueeze", {by_token, g.Int64s({3})}, p + "/Unsqueeze");
  const std::string expanded =
      g.Op("Expand", {widened, g.Int64s({1, 1, 1, groups, 1})}, p + "/Expand");
  const std::string merged =
      g.Op("Reshape", {expanded, g.Int64s({0, 0, c.heads, c.head_dim})}, p + "/Reshape");
  return g.Op("Transpose", {merged}, p + "/Transpose_1",
              {AttrInts("perm", keys ? std::vector<int64_t>{0, 2, 3, 1}
                                     : std::vector<int64_t>{0, 2, 1, 3})});
}

}  // namespace hyperplan::gen
