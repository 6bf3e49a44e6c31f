// A mixture-of-experts block: a router (MatMul -> Softmax -> TopK; the top-k probabilities
// renormalized and scattered into a dense [batch, sequence, experts] gate tensor, zero for
// experts a token did not pick), every routed expert as its own SwiGLU nodes and weights, each
// output scaled by its gate column and summed by a chain of Adds, plus optional shared experts
// that every token uses unscaled.
// Forms (BuildOptions::moe_form): dense (below, the default); ort, one com.microsoft MoE or
// QMoE node with stacked expert weights; gather, the top-k experts' weights gathered by index
// (moe_forms.h). Shared experts are plain SwiGLU nodes in every form.
// Dense dispatch: every expert computes on every token and unpicked ones are multiplied by
// zero. This keeps every shape static (sparse dispatch needs data-dependent shapes) and gives
// the planner each expert's weights as separate tensors with their own producer and consumers.
// Cost: 8 nodes and 3 weights per expert, about 12 more per block; the Add chain keeps one
// running sum live rather than every expert's output.
// Routers: softmax top-k, renormalized when the config says (Mixtral, Qwen3-MoE, the presets;
// GPT-OSS's adds a bias to the logits), or DeepSeek-V3's sigmoid scores
// with a float32 e_score_correction_bias choosing the experts within the best expert groups
// (ranked by the sum of their top two scores), the chosen scores renormalized and multiplied
// by routed_scaling_factor (about 20 more nodes per block).
// Limits: the router runs in float32 (Cast in and out) because TopK has no bfloat16 before
// opset 24.
#pragma once

#include <cstdint>
#include <string>

#include "decoder_context.h"

namespace hyperplan::gen {

std::string MoeBlock(DecoderContext& ctx, int64_t layer, const std::string& x);

// The router's choice per token, float32: `weights` [batch, sequence, k] (renormalized, and
// scaled for DeepSeek-V3), `indices` [batch, sequence, k] int64, `scores` [batch, sequence,
// experts] (softmax probabilities or sigmoid scores).
struct RoutedTopK {
  std::string weights;
  std::string indices;
  std::string scores;
};

// The router of the layer whose weights are named `w` and nodes `p` (e.g. "model.layers.1.mlp",
// "/model/layers.1/mlp").
RoutedTopK RouterTopK(DecoderContext& ctx, const std::string& x, const std::string& w,
                      const std::string& p);

}  // namespace hyperplan::gen
