// Writes a model file atomically: serialize into "<path>.tmp-<pid>" in the same directory, then
// rename over `path`, so a reader never sees half a file and a failed run leaves no file behind.
// Cost: one pass over the serialized bytes. Limits: protobuf refuses messages over 2 GiB (the
// generator keeps weights external long before that); POSIX rename semantics.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>

namespace hyperplan::gen {

// Returns the bytes written; throws std::runtime_error on failure.
int64_t WriteModelAtomically(const onnx::ModelProto& model, const std::string& path);

}  // namespace hyperplan::gen
