#include "rope.h"

#include <cmath>

#include "rope_scaling.h"

namespace hyperplan::gen {

namespace {

// [max_positions, columns] table of cos (or sin) of the rotary angles, times the scaling's
// attention factor; with `repeat_halves` each row is the rope_dim / 2 angles twice, the
// layout rotate_half multiplies against.
std::vector<float> AngleTable(const ModelConfig& c, bool sine, bool repeat_halves) {
  const int64_t rope_dim = c.RopeDim();
  const int64_t half = rope_dim / 2;
  const int64_t columns = repeat_halves ? rope_dim : half;
  const std::vector<double> inv_freq = InverseFrequencies(c);
  const double factor = RopeAttentionFactor(c);
  std::vector<float> table(static_cast<size_t>(c.max_positions * columns));
  for (int64_t i = 0; i < half; ++i) {
    for (int64_t p = 0; p < c.max_positions; ++p) {
      const double angle = static_cast<double>(p) * inv_freq[static_cast<size_t>(i)];
      const float v = static_cast<float>(factor * (sine ? std::sin(angle) : std::cos(angle)));
      table[static_cast<size_t>(p * columns + i)] = v;
      if (repeat_halves) table[static_cast<size_t>(p * columns + half + i)] = v;
    }
  }
  return table;
}

}  // namespace

void MakeRopeTables(DecoderContext& ctx) {
  GraphBuilder& g = ctx.graph;
  const ModelConfig& c = ctx.config;
  if (ctx.fused_attention()) {
    ctx.cos_cache = g.Weight("cos_cache", {c.max_positions, c.RopeDim() / 2},
                             [&c] { return AngleTable(c, false, false); });
    ctx.sin_cache = g.Weight("sin_cache", {c.max_positions, c.RopeDim() / 2},
                             [&c] { return AngleTable(c, true, false); });
    return;
  }
  const std::string cos_table =
      g.Weight("model.rotary_emb.cos_cached", {c.max_positions, c.RopeDim()},
               [&c] { return AngleTable(c, false, true); });
  const std::string sin_table =
      g.Weight("model.rotary_emb.sin_cached", {c.max_positions, c.RopeDim()},
               [&c] { return AngleTable(c, true, true); });
  // [batch, sequence, rope_dim] -> [batch, 1, sequence, rope_dim], broadcast over heads.
  const std::string axis1 = g.Int64s({1});
  const std::string cos = g.Op("Gather", {cos_table, ctx.position_ids},
                               "/model/rotary_emb/cos/Gather", {AttrInt("axis", 0)});
  const std::string sin = g.Op("Gather", {sin_table, ctx.position_ids},
                               "/model/rotary_emb/sin/Gather", {AttrInt("axis", 0)});
  ctx.rope_cos = g.Op("Unsqueeze", {cos, axis1}, "/model/rotary_emb/cos/Unsqueeze");
  ctx.rope_sin = g.Op("Unsqueeze", {sin, axis1}, "/model/rotary_emb/sin/Unsqueeze");
}

std::string ApplyRope(DecoderContext& ctx, const std::string& x, const std::string& p,
                      const std::string& output) {
  GraphBuilder& g = ctx.graph;
  const int64_t half = ctx.config.RopeDim() / 2;
  const std::vector<std::string> halves = GraphBuilder::OutputNames(p + "/Split", 2);
  g.OpOutputs("Split", "", {x, g.Int64s({half, half})}, halves, p + "/Split",
              {AttrInt("axis", -1)});
  const std::string negated = g.Op("Neg", {halves[1]}, p + "/Neg");
  const std::string rotated =
      g.Op("Concat", {negated, halves[0]}, p + "/Concat", {AttrInt("axis", -1)});
  const std::string with_cos = g.Op("Mul", {x, ctx.rope_cos}, p + "/Mul");
  const std::string with_sin = g.Op("Mul", {rotated, ctx.rope_sin}, p + "/Mul_1");
  return g.Op("Add", {with_cos, with_sin}, p + "/Add", {}, output);
}

std::string RotaryEmbedding(DecoderContext& ctx, const std::string& x,
                            const std::string& node_name) {
  const std::string out = node_name + "/output_0";
  ctx.graph.OpOutputs("RotaryEmbedding", kMsDomain,
                      {x, ctx.position_ids, ctx.cos_cache, ctx.sin_cache}, {out}, node_name,
                      {AttrInt("interleaved", 0)});
  return out;
}

}  // namespace hyperplan::gen
