// Reading a model that hyperplan rewrote (onnx_rewrite) as the model it was made from.
//
// A rewritten model runs the plan's steps in order: its compute nodes are the original ones
// (named as the plan names them) and every cache operator (domain ai.hyperplan: Prefetch,
// Store, Detach) is an identity from one copy of a tensor to the next. Dropping those nodes
// and reading each copy's name as the tensor it copies gives back the original graph, up to
// node order and names, which the plan resolves by name. So `hyperplan verify` can check a
// plan against the model a runtime will load. The ai.hyperplan functions and opset import go
// too. Control-flow bodies are not rewritten, so they are left alone.
// Cost: linear in the nodes. Limits: a rewritten model from a hyperplan that did not name
// its compute nodes keeps whatever names it had (an unnamed node's made-up name follows its
// position, which the rewrite changed, so such a plan no longer resolves).
#pragma once

#include <onnx/onnx_pb.h>

namespace hyperplan::onnx_import {

inline constexpr const char* kCacheOpsDomain = "ai.hyperplan";

// Removes the cache operators from the main graph and reads through them (see above).
void ReadThroughCacheOps(onnx::ModelProto& model);

}  // namespace hyperplan::onnx_import
