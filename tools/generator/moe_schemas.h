// ONNX Runtime's schemas for its mixture-of-experts ops (com.microsoft opset 1), the ops
// hyperplan-gen --moe-form ort writes: MoE (float expert weights) and QMoE (int4/int8 codes with
// scales). Inputs, attributes and type constraints follow ONNX Runtime's ContribOperators.md;
// the shape rule is the spec's (the output has the input's type and shape) plus checks the
// spec states: the expert weights are rank 3, and router_probs is [tokens, E] with E the
// experts fc1 stacks. RegisterOrtContribSchemas (contrib_schemas.h) registers them.
// Cost: builds two schemas. Limits: the checks read static dims only; a symbolic dim passes.
#pragma once

#include <onnx/defs/schema.h>

#include <vector>

namespace hyperplan::gen {

std::vector<onnx::OpSchema> MoeSchemas();

}  // namespace hyperplan::gen
