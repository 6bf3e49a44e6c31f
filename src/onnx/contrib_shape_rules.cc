// Shape rules for ONNX Runtime's com.microsoft operators used by LLM exports.
//
// Written from ONNX Runtime's ContribOperators.md. Notation: B batch, S sequence, N heads,
// H head size, P past sequence, L key/value sequence. Attention caches are BNSH. Where the spec
// allows a shared past/present buffer (present length = max_sequence_length), the shape cannot
// be told from the graph; these rules use the non-shared form P + L unless the total sequence
// length is a constant, or (GroupQueryAttention) a graph input, the shared form's sign; then
// present keeps past's length. Cost: constant per node.
#include <string>
#include <vector>

#include "onnx/shape_rule_helpers.h"
#include "onnx/shape_rules.h"

namespace hyperplan::onnx_import {
namespace {

constexpr char kMicrosoft[] = "com.microsoft";

// GroupQueryAttention's quantized cache: k_quant_type other than NONE, `bits` from
// kv_cache_bit_width (8 unless given); bits 0 when the cache is not quantized.
struct QuantizedCache {
  int64_t bits = 0;
};

QuantizedCache QuantizedCacheOf(onnx::InferenceContext& ctx) {
  const onnx::AttributeProto* mode = ctx.getAttribute("k_quant_type");
  if (mode == nullptr || mode->s().empty() || mode->s() == "NONE") return {};
  return {IntAttribute(ctx, "kv_cache_bit_width", 8)};
}

// The present cache's length. A constant total_sequence_length T: max(T, past), which is the
// shared buffer when past holds max_length rows. A total that is a graph input (neither a
// constant nor computed from shapes here) says the cache's length is not the sequence's: the
// shared max_length buffer (ORT GenAI's past_present_share_buffer), present of past's length,
// as ONNX Runtime's own inference for the op assumes whenever the total is not a constant.
// Else (a total computed from the shapes) past + new, the spec's non-shared form.
Dim PresentSequence(onnx::InferenceContext& ctx, const onnx::TensorShapeProto* past_key,
                    const Dim& kv_sequence) {
  const std::optional<int64_t> total = ConstantScalarInput(ctx, 6);
  if (past_key == nullptr) return total ? KnownDim(*total) : kv_sequence;
  if (total && IsKnown(past_key->dim(2))) return MaxDim(KnownDim(*total), past_key->dim(2));
  const bool total_computed = total.has_value() || ctx.getSymbolicInput(6) != nullptr;
  if (HasInput(ctx, 6) && !total_computed) return past_key->dim(2);
  return AddDims(past_key->dim(2), kv_sequence);
}

// query (B, S, N*H) or packed (B, S, (N + 2*KVN)*H); key/value (B, L, KVN*H);
// past_key/past_value (B, KVN, P, H); total_sequence_length is input 6.
// k_scale/v_scale (inputs 12, 13): float, [1] per tensor or [1, KVN, 1, H] per channel; they
// change no shape. output (B, S, N*H); present_key/value (B, KVN, P + L, H), or the shared
// buffer's length (PresentSequence); output_qk (B, N, S, P + L).
void InferGroupQueryAttention(onnx::InferenceContext& ctx) {
  const int64_t num_heads = IntAttribute(ctx, "num_heads", 0);
  const int64_t kv_num_heads = IntAttribute(ctx, "kv_num_heads", 0);
  const int32_t query_type = InputElemType(ctx, 0);
  const onnx::TensorShapeProto* query = InputShapeOfRank(ctx, 0, 3);
  if (query == nullptr) {
    SetOutputElemType(ctx, 0, query_type);
    return;
  }
  const Dim& batch = query->dim(0);
  const Dim& sequence = query->dim(1);
  Dim hidden = query->dim(2);
  Dim head_size;
  Dim kv_sequence;
  Dim v_head_size;
  if (HasInput(ctx, 1)) {
    const onnx::TensorShapeProto* key = InputShapeOfRank(ctx, 1, 3);
    const onnx::TensorShapeProto* value = InputShapeOfRank(ctx, 2, 3);
    head_size =
        key != nullptr ? DivideDim(key->dim(2), kv_num_heads) : DivideDim(query->dim(2), num_heads);
    kv_sequence = key != nullptr ? key->dim(1) : Dim();
    v_head_size = value != nullptr ? DivideDim(value->dim(2), kv_num_heads) : head_size;
  } else {
    head_size = DivideDim(query->dim(2), num_heads + 2 * kv_num_heads);
    hidden = MultiplyDim(head_size, num_heads);
    kv_sequence = sequence;
    v_head_size = head_size;
  }
  SetOutput(ctx, 0, query_type, {batch, sequence, hidden});

  const onnx::TensorShapeProto* past_key = InputShapeOfRank(ctx, 3, 4);
  const onnx::TensorShapeProto* past_value = InputShapeOfRank(ctx, 4, 4);
  const Dim present_sequence = PresentSequence(ctx, past_key, kv_sequence);
  const QuantizedCache quantized = QuantizedCacheOf(ctx);
  // The cache keeps its own element type (it may be quantized); without a past it follows K,
  // or the quantization: 4-bit codes are uint8 pairs, and 8-bit ones are left to the model's
  // declaration (int8 and float8e4m3fn are both 8 bits).
  const auto cache_type = [&](size_t past_input, size_t new_input) {
    if (int32_t type = InputElemType(ctx, past_input)) return type;
    if (quantized.bits == 4) return static_cast<int32_t>(onnx::TensorProto::UINT8);
    if (quantized.bits == 8) return 0;
    if (int32_t type = InputElemType(ctx, new_input)) return type;
    return query_type;
  };
  const auto cache_width = [&](const onnx::TensorShapeProto* past, const Dim& head) {
    if (past != nullptr) return past->dim(3);
    return quantized.bits == 4 ? DivideDim(head, 2) : head;
  };
  SetOutput(ctx, 1, cache_type(3, 1),
            {batch, KnownDim(kv_num_heads), present_sequence, cache_width(past_key, head_size)});
  SetOutput(
      ctx, 2, cache_type(4, 2),
      {batch, KnownDim(kv_num_heads), present_sequence, cache_width(past_value, v_head_size)});
  SetOutput(ctx, 3, query_type, {batch, KnownDim(num_heads), sequence, present_sequence});
}

// query (B, S, D) or packed QKV (B, S, N, 3, H); key (B, L, D), packed KV (B, L, N, 2, H) or
// BNSH (B, N, L, H); value (B, L, Dv) or BNSH (B, N, L, Hv); past_key/value (inputs 6, 7) BNSH.
// output (B, S, Dv); present_key/value (B, N, P + L, H), or (B, N, M, H) when the buffer is
// shared; qk (B, N, S, P + L).
void InferMultiHeadAttention(onnx::InferenceContext& ctx) {
  const int64_t num_heads = IntAttribute(ctx, "num_heads", 0);
  const int32_t query_type = InputElemType(ctx, 0);
  const onnx::TensorShapeProto* query = InputShape(ctx, 0);
  if (query == nullptr || (query->dim_size() != 3 && query->dim_size() != 5)) {
    SetOutputElemType(ctx, 0, query_type);
    return;
  }
  const Dim& batch = query->dim(0);
  const Dim& sequence = query->dim(1);
  const onnx::TensorShapeProto* key = InputShape(ctx, 1);
  const onnx::TensorShapeProto* value = InputShape(ctx, 2);
  const int key_rank = key != nullptr ? key->dim_size() : 0;
  const int value_rank = value != nullptr ? value->dim_size() : 0;

  Dim kv_sequence;
  Dim head_size;
  if (query->dim_size() == 5) {
    kv_sequence = sequence;
    head_size = query->dim(4);
  } else if (key_rank == 3) {
    kv_sequence = key->dim(1);
    head_size = DivideDim(key->dim(2), num_heads);
  } else if (key_rank == 4) {
    kv_sequence = key->dim(2);
    head_size = key->dim(3);
  } else if (key_rank == 5) {
    kv_sequence = key->dim(1);
    head_size = key->dim(4);
  }
  Dim v_head_size = head_size;
  Dim v_hidden = MultiplyDim(head_size, num_heads);
  if (value_rank == 3) {
    v_hidden = value->dim(2);
    v_head_size = DivideDim(value->dim(2), num_heads);
  } else if (value_rank == 4) {
    v_head_size = value->dim(3);
    v_hidden = MultiplyDim(value->dim(3), num_heads);
  } else if (query->dim_size() == 3 && key_rank == 0) {
    v_hidden = query->dim(2);
  }
  SetOutput(ctx, 0, query_type, {batch, sequence, v_hidden});

  const onnx::TensorShapeProto* past_key = InputShapeOfRank(ctx, 6, 4);
  // A BNSH key is already the whole cache (cross attention); with past_sequence_length (input
  // 8) past and present share one buffer of max_sequence_length; otherwise new keys append.
  Dim total = kv_sequence;
  if (past_key != nullptr && HasInput(ctx, 8)) {
    total = past_key->dim(2);
  } else if (past_key != nullptr && key_rank != 4) {
    total = AddDims(past_key->dim(2), kv_sequence);
  }
  SetOutput(ctx, 1, query_type, {batch, KnownDim(num_heads), total, head_size});
  SetOutput(ctx, 2, query_type, {batch, KnownDim(num_heads), total, v_head_size});
  SetOutput(ctx, 3, query_type, {batch, KnownDim(num_heads), sequence, total});
}

// A (..., K) times a block-quantized (K, N) weight: Y (..., N) in A's type.
void InferMatMulNBits(onnx::InferenceContext& ctx) {
  const int32_t type = InputElemType(ctx, 0);
  const int64_t n = IntAttribute(ctx, "N", 0);
  const onnx::TensorShapeProto* a = InputShape(ctx, 0);
  if (a == nullptr || a->dim_size() == 0 || n <= 0) {
    SetOutputElemType(ctx, 0, type);
    return;
  }
  std::vector<Dim> dims(a->dim().begin(), a->dim().end() - 1);
  dims.push_back(KnownDim(n));
  SetOutput(ctx, 0, type, dims);
}

// output and input_skip_bias_sum have the input's shape; mean and inv_std_var (float) keep
// every axis but the last, which becomes 1.
void InferSkipNormalization(onnx::InferenceContext& ctx) {
  CopyInputToOutput(ctx, 0, 0);
  if (auto reduced = ReducedShape(ctx, -1)) {
    SetOutput(ctx, 1, onnx::TensorProto::FLOAT, *reduced);
    SetOutput(ctx, 2, onnx::TensorProto::FLOAT, *reduced);
  }
  CopyInputToOutput(ctx, 0, 3);
}

// Y has X's shape in scale's type; inv_std_var reduces the axes from `axis` on, in the
// stash_type (float unless double is asked for).
void InferSimplifiedLayerNormalization(onnx::InferenceContext& ctx) {
  CopyInputToOutput(ctx, 0, 0);
  if (int32_t scale_type = InputElemType(ctx, 1); scale_type != 0 && HasOutput(ctx, 0)) {
    ctx.getOutputType(0)->mutable_tensor_type()->set_elem_type(scale_type);
  }
  if (auto reduced = ReducedShape(ctx, IntAttribute(ctx, "axis", -1))) {
    const int64_t stash_type = IntAttribute(ctx, "stash_type", onnx::TensorProto::FLOAT);
    SetOutput(ctx, 1, static_cast<int32_t>(stash_type), *reduced);
  }
}

void InferLikeFirstInput(onnx::InferenceContext& ctx) { CopyInputToOutput(ctx, 0, 0); }

}  // namespace

std::vector<ShapeRule> ContribShapeRules() {
  std::vector<ShapeRule> rules = {
      {kMicrosoft, "GroupQueryAttention", 1, InferGroupQueryAttention},
      {kMicrosoft, "MultiHeadAttention", 1, InferMultiHeadAttention},
      {kMicrosoft, "MatMulNBits", 1, InferMatMulNBits},
      {kMicrosoft, "SkipLayerNormalization", 1, InferSkipNormalization},
      {kMicrosoft, "SkipSimplifiedLayerNormalization", 1, InferSkipNormalization},
      {kMicrosoft, "SimplifiedLayerNormalization", 1, InferSimplifiedLayerNormalization},
      // ONNX Runtime registers SimplifiedLayerNormalization in the ai.onnx domain, and exports
      // write it there.
      {"", "SimplifiedLayerNormalization", 1, InferSimplifiedLayerNormalization},
      {kMicrosoft, "RotaryEmbedding", 1, InferLikeFirstInput},
  };
  // Operators whose output is their first input's type and shape. MoE and QMoE too: ONNX
  // Runtime's own schema infers them with propagateShapeAndTypeFromFirstInput (the output is
  // [tokens, hidden] or [batch, sequence, hidden] like the input); what they read of their
  // stacked [E, ...] experts is the cost model's business (src/core/moe_shape.h).
  for (const char* op : {"FastGelu", "BiasGelu", "Gelu", "QuickGelu", "BiasAdd", "MoE", "QMoE"}) {
    rules.push_back({kMicrosoft, op, 1, InferLikeFirstInput});
  }
  // ONNX Runtime's LayerNormalization predates ai.onnx's (opset 17) with the same semantics;
  // fused models of older opsets carry it in the ai.onnx domain.
  rules.push_back({"", "LayerNormalization", 1, nullptr,
                   onnx::OpSchemaRegistry::Schema("LayerNormalization", 17, "")});
  return rules;
}

}  // namespace hyperplan::onnx_import
