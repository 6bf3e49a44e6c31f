// Bare protobuf parse of an ONNX file: the floor an importer's time is measured against.
#pragma once

#include <string>

namespace hyperplan::bench {

// 0 when the file parses as a ModelProto with nodes; 3 unreadable; 4 not a model.
int ParseOnly(const std::string& path);

}  // namespace hyperplan::bench
