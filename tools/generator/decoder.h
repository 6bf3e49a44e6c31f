// Builds one whole decoder model: inputs input_ids and position_ids ([batch, sequence] int64;
// decode adds past_key_values.{i}.key/.value [batch, kv_heads, past_sequence, head_dim], or
// with latent attention past_key_values.{i}.key [batch, 1, past_sequence, kv_lora + rope]),
// token embedding (Gather), the layers (RMSNorm, attention, residual Add, RMSNorm, SwiGLU or
// mixture of experts, residual Add), the final norm and the LM head; outputs logits [batch,
// sequence, vocab] (or [batch, 1, vocab] with last_logits_only: a Slice of the last position
// before the LM head) and present.{i}.key/.value ([batch, kv_heads, sequence | total_sequence,
// head_dim]). Attention is fused (GroupQueryAttention) or unfused, projections are in the
// build's weight format (linear.h), and contrib norms fold each norm and residual Add into
// (Skip)SimplifiedLayerNormalization as onnxruntime-genai does; the three are independent.
// Cost: O(nodes) time and memory plus O(elements) for inline weights; a 120k-node graph with
// external weights builds in seconds. Limits: IR version 8, ai.onnx opset 17 (plus com.microsoft
// opset 1 for contrib norms, fused attention and int4/int8 weights); tied embeddings share one
// table unless the weights are int4/int8 (MatMulNBits keeps a packed LM head of its own);
// latent attention has no fused or contrib-norm form (throws for contrib norms).
#pragma once

#include <onnx/onnx_pb.h>

#include "build_options.h"
#include "build_stats.h"
#include "model_config.h"

namespace hyperplan::gen {

onnx::ModelProto BuildDecoder(const ModelConfig& config, const BuildOptions& options,
                              BuildStats* stats);

}  // namespace hyperplan::gen
