// How one model is written, beyond its dimensions: prefill, decode or training form (and whether
// the training step stashes or recomputes attention probabilities); attention
// fused (ONNX Runtime's GroupQueryAttention) or unfused (standard ops); the stored weight format
// (plain, MatMulNBits 4/8-bit blocks, or float8 codes with 2-D block scales); which logits are
// emitted; norms as standard ops or ONNX Runtime's contrib norms; the weight seed and where weight
// bytes live. Each is independent of the others. Cost: none (plain data). Limits: see main.cc for
// the combinations refused.
#pragma once

#include <cstdint>
#include <string>

namespace hyperplan::gen {

enum class Form { kPrefill, kDecode, kTrain };
// Norms only: standard RMSNorm ops, or SimplifiedLayerNormalization and
// SkipSimplifiedLayerNormalization (which also adds the residual) as onnxruntime-genai writes.
enum class OpSet { kStandard, kContrib };
// kFused: com.microsoft GroupQueryAttention with past/present KV in BNSH (what deployments
// run); kUnfused: scores, mask, softmax and repeated KV heads as standard ops. Latent attention
// (DeepSeek) has one form of its own and ignores this.
enum class AttentionForm { kFused, kUnfused };
// kPlain: the model's element type, plain MatMul. kInt4/kInt8: com.microsoft MatMulNBits with
// bits 4/8, block `quant_block_size` along K, scales in the model type. kFp8: float8e4m3fn codes
// (stored as uint8: ONNX 1.12 has no float8 type) with a float32 scale per
// fp8_block_rows x fp8_block_cols block, dequantized into the model type before the MatMul.
// kMxfp4: routed experts only, in the gather form (moe_quantized.h): OCP MXFP4, 4-bit e2m1
// codes with one 8-bit power-of-two scale per 32 weights along K (GPT-OSS's checkpoint); every
// other projection plain.
enum class WeightFormat { kPlain, kInt4, kInt8, kFp8, kMxfp4 };
// "plain", "int4", "int8", "fp8".
inline const char* WeightFormatName(WeightFormat format) {
  switch (format) {
    case WeightFormat::kInt4:
      return "int4";
    case WeightFormat::kInt8:
      return "int8";
    case WeightFormat::kFp8:
      return "fp8";
    case WeightFormat::kMxfp4:
      return "mxfp4";
    case WeightFormat::kPlain:
      break;
  }
  return "plain";
}

// The KV cache's element type: the model's, or GroupQueryAttention's quantized cache (8-bit
// codes with float32 scales the op dequantizes by): int8, or float8e4m3fn.
enum class KvCache { kModelType, kInt8, kFp8 };
// How many scales a quantized cache has: one per tensor ([1]), or one per channel
// ([1, kv_heads, 1, head_dim]), GroupQueryAttention's PER_TENSOR and PER_CHANNEL.
enum class KvScales { kPerTensor, kPerChannel };
// How an MoE layer's routed experts are written (moe.h, moe_forms.h). kDense: every expert on
// every token, unpicked ones gated by zero; kOrt: one com.microsoft MoE node (QMoE with int4 or
// int8 weights) on stacked [E, ...] expert weights, as ONNX Runtime GenAI exports Mixtral and
// Phi-3.5-MoE; kGather: TopK, then the picked experts' weights gathered by index from stacked
// [E, ...] tensors (a static stand-in for a torch export's per-expert dispatch).
enum class MoeForm { kDense, kOrt, kGather };
// The training step's attention backward (train_backward.h). kRecompute: the backward
// recomputes the attention probabilities from the stashed queries and keys, as PyTorch SDPA,
// FlashAttention and torch.utils.checkpoint'd eager attention do; kStash: the forward's
// [batch, heads, sequence, sequence] probabilities stay live until the backward reads them
// (eager attention without checkpointing).
enum class TrainAttention { kRecompute, kStash };

struct BuildOptions {
  Form form = Form::kPrefill;
  OpSet ops = OpSet::kStandard;
  AttentionForm attention = AttentionForm::kUnfused;
  WeightFormat weights = WeightFormat::kPlain;
  KvCache kv_cache = KvCache::kModelType;
  KvScales kv_scales = KvScales::kPerTensor;
  // Decode with fused attention: past and present are one buffer of max_length rows (ORT
  // GenAI's past_present_share_buffer), and seqlens_k / total_sequence_length are graph inputs
  // (the buffer's length is not the sequence's).
  bool shared_kv_buffer = false;
  // Prefill and decode: the LM head runs on the last position only ([batch, 1, vocab] logits),
  // as runtimes do; false keeps every position. Training always keeps every position.
  bool last_logits_only = false;
  uint64_t seed = 1;
  // External weights are references into `weights_location` (relative to the model file),
  // a file that is never written; inline weights are raw_data in the model itself.
  bool external_weights = false;
  std::string weights_location;
  // Plain weights only: round projection weights to the 4-bit grid kInt4 stores, so the two
  // forms of one model compute the same function and their outputs can be compared.
  bool fake_quant = false;
  int64_t quant_block_size = 32;  // MatMulNBits block along K
  int64_t fp8_block_rows = 128;   // kFp8 block along K (DeepSeek-V3's weight_block_size)
  int64_t fp8_block_cols = 128;   // kFp8 block along N
  MoeForm moe_form = MoeForm::kDense;
  TrainAttention train_attention = TrainAttention::kRecompute;
};

}  // namespace hyperplan::gen
