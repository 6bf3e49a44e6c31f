// Builds a GPT-2 style decoder as ONNX Runtime's transformer optimizer leaves it
// (onnxruntime.transformers.optimizer, model_type gpt2): com.microsoft EmbedLayerNormalization
// (word + position embedding and the first layer norm, its embedding_sum the residual stream),
// per layer a fused Attention (QKV projection inside, one packed cache past_<i>
// [2, batch, heads, past_sequence, head_dim] in, present_<i> [2, batch, heads, total_sequence,
// head_dim] out), the output projection, SkipLayerNormalization (residual Add, bias and the
// next norm in one), the MLP with FastGelu (even layers) or BiasGelu (odd layers), and another
// SkipLayerNormalization; the last one's norm is ln_f, then the LM head. Inputs input_ids and
// position_ids [batch, sequence] int32, past_<i>; outputs logits [batch, sequence, vocab] and
// present_<i>. It exists so that these operators have a test model written here.
// Cost: O(layers) nodes plus O(elements) for inline weights. Limits: float32 only (ONNX
// Runtime's CPU kernels of these operators take float); heads * head_dim must equal hidden; the
// position table has max_positions rows.
#pragma once

#include <onnx/onnx_pb.h>

#include "build_options.h"
#include "build_stats.h"
#include "model_config.h"

namespace hyperplan::gen {

onnx::ModelProto BuildGpt2Optimized(const ModelConfig& config, const BuildOptions& options,
                                    BuildStats* stats);

}  // namespace hyperplan::gen
