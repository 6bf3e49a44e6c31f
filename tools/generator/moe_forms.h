// The sparse forms of an MoE layer's routed experts (BuildOptions::moe_form), beside moe.h's
// dense dispatch. Both stack the experts' weights into [E, ...] tensors drawn from the same
// per-expert values as the dense form ("<w>.experts.<e>.gate_proj.weight", ...), so the three
// forms of one model compute the same function.
// ort: one com.microsoft MoE node per layer (ONNX Runtime's ContribOperators.md), as ONNX
// Runtime GenAI exports Mixtral and Phi-3.5-MoE: router logits [tokens, E] in the model type,
// k, normalize_routing_weights 1 (softmax over the top k, Mixtral's renormalization),
// activation_type swiglu with swiglu_fusion 1: fc1 [E, 2 * inter, hidden] holds the gate and up
// rows interleaved, fc2 [E, hidden, inter] the down projection. With int4/int8 weights, QMoE:
// fc1/fc2 as uint8 codes [E, N, K * bits / 8] (MatMulNBits' symmetric blocks, default zero
// point 2^(bits-1)) and block scales [E, N, K / block] in the model type, block_size set.
// gather: TopK picks k experts per token; Gather takes their gate/up [E, hidden, inter] and down
// [E, inter, hidden] slices by index, batched MatMuls run them, and the outputs are weighted by
// the renormalized top-k probabilities and summed: what a torch export's per-expert dispatch
// reads, with static shapes.
// Cost: ort adds 2 nodes and 2 (4 quantized) initializers per layer; gather about 16 nodes and
// 3 initializers. Inline weights cost O(E * hidden * inter) to make.
// Expert biases (GPT-OSS): MoE/QMoE's fc1/fc2 bias inputs (fc1's interleaved as its rows);
// gathered by index in the gather form. GPT-OSS's clamped SwiGLU: swiglu_limit,
// activation_alpha and activation_beta (ORT's names), or the gather form's own nodes.
// Limits: ort takes logits and applies its own softmax top-k: DeepSeek-V3's sigmoid
// group-limited routing reaches it as the logits of its weights (moe.cc), exact only with
// norm_topk_prob; gather takes any router as moe.h computes it; QMoE needs hidden and inter
// to be multiples of the block size and stores int4/int8 only (no fp8, no MXFP4); gather
// materializes k expert slices per token, fine for decode, heavy for a long prefill; its
// quantized experts (int4, fp8, mxfp4) are moe_quantized.h's.
#pragma once

#include <string>

#include "decoder_context.h"
#include "moe.h"

namespace hyperplan::gen {

// `logits` [batch, sequence, E] in the model type; returns [batch, sequence, hidden].
std::string OrtMoeExperts(DecoderContext& ctx, const std::string& x, const std::string& logits,
                          const std::string& w, const std::string& p);

std::string GatheredExperts(DecoderContext& ctx, const std::string& x, const RoutedTopK& top,
                            const std::string& w, const std::string& p);

// Why `config` cannot be written in `form`, or empty (checked before building).
std::string MoeFormProblem(const ModelConfig& config, MoeForm form, WeightFormat weights,
                           int64_t quant_block_size, int64_t fp8_rows = 128,
                           int64_t fp8_cols = 128);

}  // namespace hyperplan::gen
