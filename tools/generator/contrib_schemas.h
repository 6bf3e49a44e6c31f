// ONNX Runtime's schemas for the fused ops hyperplan-gen writes with --ops contrib, registered
// into ONNX's own schema registry so that onnx::checker and ONNX shape inference can check and
// infer through them: SimplifiedLayerNormalization (ai.onnx domain, version 1, where ONNX
// Runtime registers it), and com.microsoft (opset 1) SkipSimplifiedLayerNormalization,
// RotaryEmbedding, GroupQueryAttention and MatMulNBits; and the transformer optimizer's GPT-2
// ops of --form gpt2-optimized (optimizer_schemas.h: EmbedLayerNormalization, Attention,
// SkipLayerNormalization, FastGelu, BiasGelu); and --moe-form ort's MoE and QMoE
// (moe_schemas.h). Inputs, outputs, attributes and type constraints
// follow ONNX Runtime's contrib operator spec; the shape rules are our own.
// Cost: one registration per process. Limits: only these twelve ops; GroupQueryAttention's rule
// covers separate (not packed) q/k/v and a full, unshared KV cache; stock ONNX tools without
// this registration reject SimplifiedLayerNormalization ("No Op registered ... ai.onnx").
#pragma once

namespace hyperplan::gen {

// Idempotent; safe to call more than once.
void RegisterOrtContribSchemas();

}  // namespace hyperplan::gen
