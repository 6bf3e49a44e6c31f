#include "mlp.h"

#include "linear.h"

namespace hyperplan::gen {

std::string GluActivation(DecoderContext& ctx, const std::string& gate, const std::string& up,
                          const std::string& p) {
  GraphBuilder& g = ctx.graph;
  const ModelConfig& c = ctx.config;
  if (!c.ClampedSwiGlu()) {
    const std::string sigmoid = g.Op("Sigmoid", {gate}, p + "/act_fn/Sigmoid");
    const std::string silu = g.Op("Mul", {gate, sigmoid}, p + "/act_fn/Mul");
    return g.Op("Mul", {silu, up}, p + "/Mul");
  }
  const ElemType t = g.dtype();
  std::string g_in = gate;
  std::string u_in = up;
  if (c.swiglu_limit > 0.0f) {
    const std::string limit = g.FloatScalar(c.swiglu_limit, t);
    g_in = g.Op("Clip", {gate, "", limit}, p + "/act_fn/Clip");
    u_in = g.Op("Clip", {up, g.FloatScalar(-c.swiglu_limit, t), limit}, p + "/up/Clip");
  }
  const std::string scaled =
      g.Op("Mul", {g_in, g.FloatScalar(c.swiglu_alpha, t)}, p + "/act_fn/Mul_alpha");
  const std::string sigmoid = g.Op("Sigmoid", {scaled}, p + "/act_fn/Sigmoid");
  const std::string glu = g.Op("Mul", {g_in, sigmoid}, p + "/act_fn/Mul");
  const std::string shifted =
      g.Op("Add", {u_in, g.FloatScalar(c.swiglu_beta, t)}, p + "/up/Add_beta");
  return g.Op("Mul", {glu, shifted}, p + "/Mul");
}

std::string SwiGlu(DecoderContext& ctx, const std::string& x, int64_t width, const std::string& w,
                   const std::string& p) {
  const int64_t hidden = ctx.config.hidden;
  const bool bias = ctx.config.mlp_bias;
  const char* matmul = ProjectionOp(ctx);
  const std::string gate =
      LinearMaybeBias(ctx, x, hidden, width, w + ".gate_proj", p + "/gate_proj" + matmul, bias);
  const std::string up =
      LinearMaybeBias(ctx, x, hidden, width, w + ".up_proj", p + "/up_proj" + matmul, bias);
  const std::string gated = GluActivation(ctx, gate, up, p);
  return LinearMaybeBias(ctx, gated, width, hidden, w + ".down_proj", p + "/down_proj" + matmul,
                         bias);
}

}  // namespace hyperplan::gen
