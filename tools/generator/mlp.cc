#include "mlp.h"

#include "linear.h"

namespace hyperplan::gen {

std::string SwiGlu(DecoderContext& ctx, const std::string& x, int64_t width, const std::string& w,
                   const std::string& p) {
  GraphBuilder& g = ctx.graph;
  const int64_t hidden = ctx.config.hidden;
  const char* matmul = ctx.contrib() ? "/MatMulNBits" : "/MatMul";
  const std::string gate =
      Linear(ctx, x, hidden, width, w + ".gate_proj", p + "/gate_proj" + matmul);
  const std::string up = Linear(ctx, x, hidden, width, w + ".up_proj", p + "/up_proj" + matmul);
  const std::string sigmoid = g.Op("Sigmoid", {gate}, p + "/act_fn/Sigmoid");
  const std::string silu = g.Op("Mul", {gate, sigmoid}, p + "/act_fn/Mul");
  const std::string gated = g.Op("Mul", {silu, up}, p + "/Mul");
  return Linear(ctx, gated, width, hidden, w + ".down_proj", p + "/down_proj" + matmul);
}

}  // namespace hyperplan::gen
