// What every block of one decoder shares while it is built: the dimensions, the build options,
// the graph builder, and the values made once per model (rotary tables, causal mask, sequence
// lengths for GroupQueryAttention) that every layer reads.
// Cost: none (references and names). Limits: one context per model being built.
#pragma once

#include <string>

#include "build_options.h"
#include "graph_builder.h"
#include "model_config.h"

namespace hyperplan::gen {

struct DecoderContext {
  DecoderContext(const ModelConfig& c, const BuildOptions& o, GraphBuilder& g)
      : config(c), options(o), graph(g) {}

  const ModelConfig& config;
  const BuildOptions& options;
  GraphBuilder& graph;

  std::string input_ids = "input_ids";        // [batch, sequence] int64
  std::string position_ids = "position_ids";  // [batch, sequence] int64

  // Unfused attention.
  std::string rope_cos;     // [batch, 1, sequence, head_dim]
  std::string rope_sin;     // [batch, 1, sequence, head_dim]
  std::string causal_mask;  // [sequence, total_sequence], 0 or the dtype's lowest value
  std::string window_mask;  // the same, also hiding keys sliding_window or more behind

  // Fused attention.
  std::string cos_cache;              // [max_positions, head_dim / 2]
  std::string sin_cache;              // [max_positions, head_dim / 2]
  std::string seqlens_k;              // [batch] int32: total length - 1
  std::string total_sequence_length;  // scalar int32

  bool decode() const { return options.form == Form::kDecode; }
  // The mask attention in `layer` adds to its scores (standard ops).
  const std::string& MaskFor(int64_t layer) const {
    return config.IsSlidingLayer(layer) ? window_mask : causal_mask;
  }
  // SimplifiedLayerNormalization / SkipSimplifiedLayerNormalization instead of RMSNorm ops.
  bool contrib_norms() const { return options.ops == OpSet::kContrib; }
  // GroupQueryAttention (latent attention has no fused op and keeps its own form).
  bool fused_attention() const {
    return options.attention == AttentionForm::kFused && !config.IsMla();
  }
  // GroupQueryAttention's quantized cache (int8 or float8e4m3fn codes and float32 scales).
  bool quantized_kv() const { return options.kv_cache != KvCache::kModelType; }
  // The cache's ONNX element type: the model's, INT8 or FLOAT8E4M3FN.
  int32_t kv_onnx_type() const;
  // Past and present are one max_length buffer; seqlens_k and total_sequence_length are inputs.
  bool shared_kv() const { return options.shared_kv_buffer; }
  // Projections are com.microsoft MatMulNBits nodes.
  bool nbits_weights() const {
    return options.weights == WeightFormat::kInt4 || options.weights == WeightFormat::kInt8;
  }
};

// Graph inputs of the shared-buffer form (`DecoderContext::shared_kv`).
inline constexpr const char* kSeqlensK = "seqlens_k";                         // [batch] int32
inline constexpr const char* kTotalSequenceLength = "total_sequence_length";  // scalar int32

// Graph input and output names of the KV cache of `layer`; `kind` is "key" or "value".
std::string PastName(int64_t layer, const char* kind);
std::string PresentName(int64_t layer, const char* kind);

}  // namespace hyperplan::gen
