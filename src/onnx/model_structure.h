// Model structure limits, checked right after loading: how deep control-flow bodies nest, and
// how model-local functions call each other.
//
// Every later stage (dim binding, name resolution, ONNX's shape inference, graph building)
// walks bodies and function calls recursively, and ONNX's inference of a function call infers
// the functions it calls in turn. So before any of them runs:
//  - control-flow bodies (If, Loop, Scan attributes) may nest at most kMaxBodyNesting deep,
//    in the model's graph and in each function's body;
//  - a model-local function that calls itself, directly or through others (F -> G -> F), is an
//    error naming the cycle: it has no finite expansion, and planning it as an opaque node
//    would be silently wrong;
//  - chains of function calls may be at most kMaxFunctionCallDepth long;
//  - a node in a domain the model defines functions for, that is neither one of them nor an
//    operator with a known schema, is an error: a misspelt or missing function.
// Protobuf's own parse depth is raised to fit these limits (model_loading.cc), so a model
// just over them gets these messages rather than a bare parse failure.
// Cost: one pass over the nodes of the graph, its bodies and the functions, plus a DFS over
// the function call graph. Every error is Error(kModel) naming the node or functions.
#pragma once

#include <onnx/onnx_pb.h>

#include "onnx/import_context.h"

namespace hyperplan::onnx_import {

inline constexpr int kMaxBodyNesting = 64;
inline constexpr int kMaxFunctionCallDepth = 64;

void CheckModelStructure(const onnx::ModelProto& model, const ImportContext& context);

}  // namespace hyperplan::onnx_import
