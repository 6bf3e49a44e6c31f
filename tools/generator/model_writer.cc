#include "model_writer.h"

#include <stdexcept>

#include "files/atomic_write.h"

namespace hyperplan::gen {

int64_t WriteModelAtomically(const onnx::ModelProto& model, const std::string& path) {
  std::string bytes;
  if (!model.SerializeToString(&bytes)) {
    throw std::runtime_error("cannot serialize the model for " + path);
  }
  files::WriteFileAtomically(path, bytes);
  return static_cast<int64_t>(bytes.size());
}

}  // namespace hyperplan::gen
