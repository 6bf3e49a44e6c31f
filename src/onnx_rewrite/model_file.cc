// ONNX model file reading and deterministic writing (see model_file.h).
#include "onnx_rewrite/model_file.h"

#include <fcntl.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "files/proto_bytes.h"
#include "hyperplan/error.h"

namespace hyperplan::onnx_rewrite {

onnx::ModelProto ReadModelFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(ErrorKind::kInputFile, path + ": cannot read: " + std::strerror(errno));
  onnx::ModelProto model;
  bool parsed = false;
  {
    google::protobuf::io::FileInputStream file(fd);
    google::protobuf::io::CodedInputStream coded(&file);
    coded.SetTotalBytesLimit(INT_MAX);
    parsed = model.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
  }
  close(fd);
  if (!parsed) throw Error(ErrorKind::kModel, path + ": not an ONNX model (protobuf parse failed)");
  return model;
}

std::string SerializeModel(const onnx::ModelProto& model) {
  return files::DeterministicBytes(model, "the rewritten model");
}

}  // namespace hyperplan::onnx_rewrite
