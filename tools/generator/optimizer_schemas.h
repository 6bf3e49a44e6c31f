// ONNX Runtime's schemas for the fused ops its transformer optimizer leaves in a GPT-2 (the ops
// hyperplan-gen --form gpt2-optimized writes): com.microsoft (opset 1) EmbedLayerNormalization,
// Attention, SkipLayerNormalization, FastGelu and BiasGelu. Inputs, outputs, attributes and type
// constraints follow ONNX Runtime's ContribOperators.md; the shape rules are our own, written
// from the shapes that document states. RegisterOrtContribSchemas (contrib_schemas.h) registers
// them with the other contrib ops.
// Cost: builds five schemas. Limits: Attention's rule covers self attention (K and V as long as
// the query) with a packed past [2, batch, heads, past, head] or a shared max_length buffer;
// SkipLayerNormalization's saved mean and inverse std get a type but no shape.
#pragma once

#include <onnx/defs/schema.h>

#include <vector>

namespace hyperplan::gen {

std::vector<onnx::OpSchema> TransformerOptimizerSchemas();

}  // namespace hyperplan::gen
