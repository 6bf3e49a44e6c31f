// Shape rules for ONNX Runtime's fused attention operators beyond GroupQueryAttention and
// MultiHeadAttention: Attention (the transformer optimizer's, weights inside), PackedAttention,
// PackedMultiHeadAttention, DecoderMaskedMultiHeadAttention, PagedAttention, SparseAttention.
//
// Written from ONNX Runtime's ContribOperators.md. Notation: B batch, S sequence, T tokens of a
// packed batch, N heads, Nkv key/value heads, H head size, P past sequence, M the cache's
// max_sequence_length. Where the spec shares the past and present buffers
// (past_present_share_buffer, DecoderMaskedMultiHeadAttention, SparseAttention, PagedAttention's
// block pool), the present output is the past input's shape: one buffer of M tokens, not a
// past/present pair that grows. Cost: constant per node.
#include <string>
#include <vector>

#include "onnx/shape_rule_helpers.h"
#include "onnx/shape_rules.h"

namespace hyperplan::onnx_import {
namespace {

// Input 0's shape when it has rank `rank`; otherwise output 0 gets `type` alone (its shape
// unknown) and the result is null.
const onnx::TensorShapeProto* InputOfRankOrTypeOnly(onnx::InferenceContext& ctx, int rank,
                                                    int32_t type) {
  const onnx::TensorShapeProto* input = InputShapeOfRank(ctx, 0, rank);
  if (input == nullptr) SetOutputElemType(ctx, 0, type);
  return input;
}

constexpr char kMicrosoft[] = "com.microsoft";

// Copies input `input`'s shape and type to output `index` (a cache whose buffer is shared).
void SharedBuffer(onnx::InferenceContext& ctx, size_t input, size_t index) {
  CopyInputToOutput(ctx, input, index);
}

// The widths of Q, K and V a packed weight (Din, Dq + Dk + Dv) makes: qkv_hidden_sizes when
// given, else three equal thirds of the weight's (or the bias's) last axis.
struct QkvWidths {
  Dim q, k, v;
};
QkvWidths WidthsOf(onnx::InferenceContext& ctx) {
  const std::vector<int64_t> sizes = IntsAttribute(ctx, "qkv_hidden_sizes");
  if (sizes.size() == 3) return {KnownDim(sizes[0]), KnownDim(sizes[1]), KnownDim(sizes[2])};
  Dim packed;
  if (const onnx::TensorShapeProto* weights = InputShapeOfRank(ctx, 1, 2)) {
    packed = weights->dim(1);
  } else if (const onnx::TensorShapeProto* bias = InputShapeOfRank(ctx, 2, 1)) {
    packed = bias->dim(0);
  }
  const Dim third = DivideDim(packed, 3);
  return {third, third, third};
}

// Attention: input (B, S, Din), weights (Din, Dq + Dk + Dv), bias, mask_index, past (input 4)
// (2, B, N, P, H). output (B, S, Dv); present (2, B, N, P + S, H), or past's shape
// (2, B, N, M, H) with past_present_share_buffer. Without a past, present is (2, B, N, S, H).
void InferAttention(onnx::InferenceContext& ctx) {
  const int32_t type = InputElemType(ctx, 0);
  const onnx::TensorShapeProto* input = InputShapeOfRank(ctx, 0, 3);
  if (input == nullptr) {
    SetOutputElemType(ctx, 0, type);
    SetOutputElemType(ctx, 1, type);
    return;
  }
  const int64_t num_heads = IntAttribute(ctx, "num_heads", 0);
  const QkvWidths widths = WidthsOf(ctx);
  SetOutput(ctx, 0, type, {input->dim(0), input->dim(1), widths.v});
  const onnx::TensorShapeProto* past = InputShapeOfRank(ctx, 4, 5);
  if (past != nullptr && IntAttribute(ctx, "past_present_share_buffer", 0) != 0) {
    SharedBuffer(ctx, 4, 1);
    return;
  }
  const Dim head_size = past != nullptr ? past->dim(4) : DivideDim(widths.k, num_heads);
  const Dim total = past != nullptr ? AddDims(past->dim(3), input->dim(1)) : input->dim(1);
  SetOutput(ctx, 1, type, {KnownDim(2), input->dim(0), KnownDim(num_heads), total, head_size});
}

// PackedAttention: input (T, Din), weights (Din, Dq + Dk + Dv), bias, token_offset,
// cumulative_sequence_length. output (T, Dv).
void InferPackedAttention(onnx::InferenceContext& ctx) {
  const int32_t type = InputElemType(ctx, 0);
  if (const onnx::TensorShapeProto* input = InputOfRankOrTypeOnly(ctx, 2, type)) {
    SetOutput(ctx, 0, type, {input->dim(0), WidthsOf(ctx).v});
  }
}

// PackedMultiHeadAttention: query (T, D) with value (T, Dv), or packed QKV (T, N, 3, H).
// output (T, Dv), N * H for packed QKV.
void InferPackedMultiHeadAttention(onnx::InferenceContext& ctx) {
  const int32_t type = InputElemType(ctx, 0);
  const onnx::TensorShapeProto* query = InputShape(ctx, 0);
  if (query == nullptr || (query->dim_size() != 2 && query->dim_size() != 4)) {
    SetOutputElemType(ctx, 0, type);
    return;
  }
  Dim width = query->dim_size() == 2 ? query->dim(1) : Dim();
  if (query->dim_size() == 4 && IsKnown(query->dim(1))) {
    width = MultiplyDim(query->dim(3), query->dim(1).dim_value());
  } else if (const onnx::TensorShapeProto* value = InputShapeOfRank(ctx, 2, 2)) {
    width = value->dim(1);
  }
  SetOutput(ctx, 0, type, {query->dim(0), width});
}

// DecoderMaskedMultiHeadAttention (one new token): query (B, 1, D) or packed QKV
// (B, 1, D + D + Dv); key/value (B, 1, D) or, for cross attention, (B, N, L, H); past_key and
// past_value (inputs 5, 6) (B, N, M, H), shared with present. output (B, 1, Dv); present_key
// and present_value the past's shape; qk (output 3) (B, N, 1, M).
void InferDecoderMaskedMultiHeadAttention(onnx::InferenceContext& ctx) {
  const int32_t type = InputElemType(ctx, 0);
  const onnx::TensorShapeProto* query = InputOfRankOrTypeOnly(ctx, 3, type);
  if (query == nullptr) return;
  const int64_t num_heads = IntAttribute(ctx, "num_heads", 0);
  Dim width = DivideDim(query->dim(2), 3);  // packed QKV of equal widths
  if (const onnx::TensorShapeProto* value = InputShape(ctx, 2)) {
    if (value->dim_size() == 3) width = value->dim(2);
    if (value->dim_size() == 4) width = MultiplyDim(value->dim(3), num_heads);
  }
  SetOutput(ctx, 0, type, {query->dim(0), query->dim(1), width});
  SharedBuffer(ctx, 5, 1);
  SharedBuffer(ctx, 6, 2);
  if (const onnx::TensorShapeProto* past = InputShapeOfRank(ctx, 5, 4)) {
    SetOutput(ctx, 3, onnx::TensorProto::FLOAT,
              {query->dim(0), KnownDim(num_heads), query->dim(1), past->dim(2)});
  }
}

// The output's hidden width N*H from the query's last axis: the query's own width when key and
// value come apart (input 1 present), else the packed (N + 2*Nkv)*H's query share.
Dim QueryHiddenWidth(onnx::InferenceContext& ctx, const Dim& query_width) {
  if (HasInput(ctx, 1)) return query_width;
  const int64_t num_heads = IntAttribute(ctx, "num_heads", 0);
  const int64_t kv_num_heads = IntAttribute(ctx, "kv_num_heads", 0);
  return MultiplyDim(DivideDim(query_width, num_heads + 2 * kv_num_heads), num_heads);
}

// PagedAttention: query (T, N*H) or packed (T, (N + 2*Nkv)*H); key_cache and value_cache
// (inputs 3, 4) (num_blocks, block_size, Nkv*H), the block pool every sequence's cache lives
// in. output (T, N*H); key_cache_out and value_cache_out are the pool, updated in place.
void InferPagedAttention(onnx::InferenceContext& ctx) {
  const int32_t type = InputElemType(ctx, 0);
  if (const onnx::TensorShapeProto* query = InputOfRankOrTypeOnly(ctx, 2, type)) {
    SetOutput(ctx, 0, type, {query->dim(0), QueryHiddenWidth(ctx, query->dim(1))});
  }
  SharedBuffer(ctx, 3, 1);
  SharedBuffer(ctx, 4, 2);
}

// SparseAttention: query (B, S, N*H) or packed (B, S, (N + 2*Nkv)*H); past_key and past_value
// (inputs 3, 4) (B, Nkv, M, H), shared with present. output (B, S, N*H); present the past's
// shape.
void InferSparseAttention(onnx::InferenceContext& ctx) {
  const int32_t type = InputElemType(ctx, 0);
  if (const onnx::TensorShapeProto* query = InputOfRankOrTypeOnly(ctx, 3, type)) {
    SetOutput(ctx, 0, type, {query->dim(0), query->dim(1), QueryHiddenWidth(ctx, query->dim(2))});
  }
  SharedBuffer(ctx, 3, 1);
  SharedBuffer(ctx, 4, 2);
}

}  // namespace

std::vector<ShapeRule> ContribAttentionShapeRules() {
  return {
      {kMicrosoft, "Attention", 1, InferAttention},
      {kMicrosoft, "PackedAttention", 1, InferPackedAttention},
      {kMicrosoft, "PackedMultiHeadAttention", 1, InferPackedMultiHeadAttention},
      {kMicrosoft, "DecoderMaskedMultiHeadAttention", 1, InferDecoderMaskedMultiHeadAttention},
      {kMicrosoft, "PagedAttention", 1, InferPagedAttention},
      {kMicrosoft, "SparseAttention", 1, InferSparseAttention},
  };
}

}  // namespace hyperplan::onnx_import
