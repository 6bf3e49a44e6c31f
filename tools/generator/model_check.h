// Self-check of a generated model, run by --check: the ONNX checker, ONNX shape inference (strict,
// with type checks and data propagation) with the symbolic dims bound to small sizes, a count of
// node outputs whose shape stays unknown, and the external-data layout (one location, offsets
// consecutive and 4096-byte aligned, lengths equal to dims times element size, no inline bytes).
// ONNX 1.12's checker stat()s every external file; the weights file is never written by design,
// so the checker and inference see external weights as graph inputs of the same type and shape
// (what inference learns from an initializer is exactly that), and the layout is checked here.
// ONNX Runtime's contrib schemas are registered first (contrib_schemas.h).
// Cost: two shape-inference passes over the graph (seconds for 100k+ nodes) and one copy of the
// graph without weight bytes. Limits: shapes inside subgraphs are not counted (there are none).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace hyperplan::gen {

struct CheckReport {
  bool ok = true;
  std::vector<std::string> lines;  // findings, one per line, failures prefixed "FAIL"
};

// `dims` binds symbolic dims for the bound pass (e.g. batch=1, sequence=4, past_sequence=3,
// total_sequence=7). Without `require_concrete`, node outputs ONNX's own inference leaves
// unshaped are counted in a line, not failed (the swin form's window arithmetic, which ONNX
// 1.12 does not fold, is what it is for).
CheckReport CheckModel(const onnx::ModelProto& model, const std::map<std::string, int64_t>& dims,
                       bool require_concrete = true);

}  // namespace hyperplan::gen
