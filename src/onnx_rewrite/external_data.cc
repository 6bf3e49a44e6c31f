// External-data locations relative to the output (see external_data.h).
#include "onnx_rewrite/external_data.h"

#include <filesystem>

#include "hyperplan/error.h"
#include "onnx/model_tensors.h"

namespace hyperplan::onnx_rewrite {
namespace {

namespace fs = std::filesystem;

// The directory a model file's relative locations start from, absolute and normalised.
fs::path BaseDirectory(const std::string& file) {
  return fs::absolute(fs::path(file)).lexically_normal().parent_path();
}

}  // namespace

int64_t RelocateExternalData(onnx::ModelProto& model, const std::string& model_path,
                             const std::string& output_path) {
  const fs::path model_dir = BaseDirectory(model_path);
  const fs::path output_dir = BaseDirectory(output_path);
  int64_t external = 0;
  onnx_import::ForEachTensor(model, [&](onnx::TensorProto& tensor) {
    if (tensor.data_location() != onnx::TensorProto::EXTERNAL) return;
    ++external;
    onnx::StringStringEntryProto* location = onnx_import::ExternalLocation(tensor);
    if (location == nullptr || location->value().empty() ||
        fs::path(location->value()).is_absolute()) {
      throw Error(ErrorKind::kModel, model_path + ": tensor '" + tensor.name() +
                                         "' is external but has no relative 'location'");
    }
    if (model_dir == output_dir) return;
    const fs::path weights = (model_dir / location->value()).lexically_normal();
    const fs::path relative = weights.lexically_relative(output_dir);
    if (relative.empty() || *relative.begin() == "..") {
      throw Error(ErrorKind::kUsage,
                  output_path + ": the model's external weights ('" + location->value() +
                      "') would lie outside this file's directory, which ONNX does not allow, "
                      "and hyperplan never copies weights: write the rewritten model into " +
                      model_dir.string() + " (or a directory above it)");
    }
    location->set_value(relative.generic_string());
  });
  return external;
}

}  // namespace hyperplan::onnx_rewrite
