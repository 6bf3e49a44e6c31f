// Reading an ONNX model's protobuf and writing it back, byte-identically for the same message.
//
// Reads the .onnx file only: external-data weight files are never opened. Inline weights are
// part of the message and are read with it (the rewritten model must carry them). Writes with
// protobuf's deterministic serialisation (ONNX's schema has no maps, so this is byte-stable).
// Cost: linear in the file. Limits: protobuf's 2 GiB message limit, as for every ONNX reader.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

namespace hyperplan::onnx_rewrite {

// Error(kInputFile) when unreadable, Error(kModel) when not a model.
onnx::ModelProto ReadModelFile(const std::string& path);

std::string SerializeModel(const onnx::ModelProto& model);

}  // namespace hyperplan::onnx_rewrite
