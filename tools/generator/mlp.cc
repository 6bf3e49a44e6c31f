#include "mlp.h"

#include "linear.h"

namespace hyperplan::gen {

std::string SwiGlu(DecoderContext& ctx, const std::string& x, int64_t width, const std::string& w,
                   const std::string& p) {
  GraphBuilder& g = ctx.graph;
  const int64_t hidden = ctx.config.hidden;
  const bool bias = ctx.config.mlp_bias;
  const char* matmul = ProjectionOp(ctx);
  const std::string gate =
      LinearMaybeBias(ctx, x, hidden, width, w + ".gate_proj", p + "/gate_proj" + matmul, bias);
  const std::string up =
      LinearMaybeBias(ctx, x, hidden, width, w + ".up_proj", p + "/up_proj" + matmul, bias);
  const std::string sigmoid = g.Op("Sigmoid", {gate}, p + "/act_fn/Sigmoid");
  const std::string silu = g.Op("Mul", {gate, sigmoid}, p + "/act_fn/Mul");
  const std::string gated = g.Op("Mul", {silu, up}, p + "/Mul");
  return LinearMaybeBias(ctx, gated, width, hidden, w + ".down_proj", p + "/down_proj" + matmul,
                         bias);
}

}  // namespace hyperplan::gen
