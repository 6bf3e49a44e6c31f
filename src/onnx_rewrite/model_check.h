// CheckRewrittenModel: ONNX's checker (onnx::checker::check_model) on a rewritten model,
// without its weight files.
//
// ONNX 1.12's checker stat()s every external-data file, and hyperplan never needs (or reads)
// the weights. So external initializers of the main graph are checked here for a usable
// relative location, then the checker runs on a view in which they are graph inputs of the
// same type and shape. Ops of the default domain that ONNX 1.12 has no schema for (ONNX
// Runtime's SimplifiedLayerNormalization, operators added after opset 17) make the stock
// checker reject the original model too; in the view they move to a placeholder domain, so the
// checker treats them as it treats com.microsoft ops: structure checked, schema not. Every
// other check is ONNX's own, unchanged. Cost: the checker's, plus one copy of the model's
// structure when a view is needed. Limits: external tensors inside control-flow bodies or
// Constant attributes keep the checker's file test (exporters put weights in the main graph).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace hyperplan::onnx_rewrite {

struct CheckReport {
  int64_t schemaless_nodes = 0;             // default-domain nodes checked without a schema
  std::vector<std::string> schemaless_ops;  // their op types, sorted
};

// Throws Error(kInternal, "<output_path>: the rewritten model fails ONNX's checker: ...").
CheckReport CheckRewrittenModel(const onnx::ModelProto& model, const std::string& output_path);

}  // namespace hyperplan::onnx_rewrite
