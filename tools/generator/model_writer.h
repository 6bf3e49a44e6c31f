// Writes a model file through the project's one atomic writer (src/files/atomic_write.h): a
// reader never sees half a file and a failed run leaves the old file, if any, as it was.
// Cost: the model serialized once in memory, then one write. Limits: protobuf refuses messages
// over 2 GiB (the generator keeps weights external long before that).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>

namespace hyperplan::gen {

// Returns the bytes written; throws hyperplan::Error(kOutputFile) when the file cannot be
// written, std::runtime_error when the model cannot be serialized.
int64_t WriteModelAtomically(const onnx::ModelProto& model, const std::string& path);

}  // namespace hyperplan::gen
