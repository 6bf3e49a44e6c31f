#include "model_writer.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace hyperplan::gen {

int64_t WriteModelAtomically(const onnx::ModelProto& model, const std::string& path) {
  const std::string temp = path + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot open " + temp + " for writing");
    if (!model.SerializeToOstream(&out)) {
      out.close();
      std::filesystem::remove(temp);
      throw std::runtime_error("cannot serialize the model to " + temp);
    }
    out.close();
    if (!out) {
      std::filesystem::remove(temp);
      throw std::runtime_error("write to " + temp + " failed");
    }
  }
  std::error_code error;
  std::filesystem::rename(temp, path, error);
  if (error) {
    std::filesystem::remove(temp);
    throw std::runtime_error("cannot rename " + temp + " to " + path + ": " + error.message());
  }
  return static_cast<int64_t>(std::filesystem::file_size(path));
}

}  // namespace hyperplan::gen
