// External-data references of a model written to another place.
//
// ONNX resolves an external tensor's `location` relative to the model file's directory, and
// both ONNX's checker and ONNX Runtime refuse locations that leave that directory. So a
// rewritten model keeps pointing at the same weights file (never copied, never opened) by
// rewriting each location relative to the output's directory; when that would need "..", the
// output cannot reach the weights and the rewrite is refused with the directory to use instead.
// Cost: one pass over the model's tensors (graph, bodies, Constant attributes, functions).
// Limits: paths are compared lexically (symbolic links are not resolved).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>

namespace hyperplan::onnx_rewrite {

// Rewrites the `location` of every external tensor for a model read from `model_path` and
// written to `output_path`; returns how many tensors are external. Error(kUsage) naming
// `output_path` when a location would leave the output's directory, Error(kModel) for an
// external tensor without a usable location.
int64_t RelocateExternalData(onnx::ModelProto& model, const std::string& model_path,
                             const std::string& output_path);

}  // namespace hyperplan::onnx_rewrite
