// Whether a model is one a plan holds for (see model_binding.h).
#include "onnx_rewrite/model_binding.h"

#include <fmt/format.h>

#include <charconv>

#include "hyperplan/error.h"
#include "onnx_rewrite/cache_functions.h"
#include "onnx_rewrite/model_file.h"

namespace hyperplan::onnx_rewrite {
namespace {

namespace pb = ::hyperplan::plan::v1;

std::string Short(const std::string& digest) { return digest.substr(0, 16) + "..."; }

std::string PlanDims(const pb::Plan& plan) {
  std::string text;
  for (const pb::BoundDim& dim : plan.provenance().bound_dims()) {
    text += fmt::format("{}{}={}", text.empty() ? "" : ", ", dim.name(), dim.value());
  }
  return text.empty() ? "no dims" : text;
}

const pb::BoundDim* FindDim(const pb::Plan& plan, const std::string& name) {
  for (const pb::BoundDim& dim : plan.provenance().bound_dims()) {
    if (dim.name() == name) return &dim;
  }
  return nullptr;
}

[[noreturn]] void Refuse(const std::string& plan_path, const std::string& what) {
  throw Error(ErrorKind::kPlanFile, plan_path + ": " + what);
}

// Each dim the model is said to run at must be one the plan binds, to the same value.
void CheckDims(const pb::Plan& plan, const std::string& plan_path,
               const std::map<std::string, int64_t, std::less<>>& dims, const std::string& source) {
  for (const auto& [name, value] : dims) {
    const pb::BoundDim* bound = FindDim(plan, name);
    if (bound == nullptr) {
      Refuse(plan_path, fmt::format("dim '{}': {} sets it to {}, but the plan binds no dim of that "
                                    "name (it was made for {})",
                                    name, source, value, PlanDims(plan)));
    }
    if (bound->value() != value) {
      Refuse(plan_path, fmt::format("dim '{}': the plan was made for {}, but {} has {}", name,
                                    bound->value(), source, value));
    }
  }
}

// Concrete dims of the model's graph inputs must be the plan's shapes for those values.
void CheckInputShapes(const pb::Plan& plan, const BindingCheck& check,
                      const ModelBinding& binding) {
  for (const ModelBinding::Input& input : binding.inputs) {
    for (const pb::Value& value : plan.values()) {
      if (value.name() != input.name) continue;
      if (!value.size_known() || value.shape_size() != static_cast<int>(input.dims.size())) break;
      for (size_t axis = 0; axis < input.dims.size(); ++axis) {
        const int64_t planned = value.shape(static_cast<int>(axis));
        if (input.dims[axis] >= 0 && input.dims[axis] != planned) {
          Refuse(check.plan_path,
                 fmt::format("input '{}' axis {}: the plan was made for {}, but {} fixes "
                             "it at {} (the plan's dims: {})",
                             input.name, axis, planned, check.model_path, input.dims[axis],
                             PlanDims(plan)));
        }
      }
      break;
    }
  }
}

}  // namespace

ModelBinding ReadModelBinding(const std::string& model_path) {
  const onnx::ModelProto model = ReadModelFile(model_path);
  ModelBinding binding;
  const std::string prefix = kDimMetadataPrefix;
  for (const onnx::StringStringEntryProto& entry : model.metadata_props()) {
    if (entry.key() == kPlanDigestMetadata) {
      binding.rewritten = true;
      binding.plan_sha256 = entry.value();
    } else if (entry.key() == kModelDigestMetadata) {
      binding.model_sha256 = entry.value();
    } else if (entry.key().rfind(prefix, 0) == 0) {
      const std::string& text = entry.value();
      int64_t value = -1;
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (error != std::errc() || end != text.data() + text.size() || value < 0) {
        throw Error(ErrorKind::kModel, fmt::format("{}: metadata '{}' is '{}', not a dimension",
                                                   model_path, entry.key(), text));
      }
      binding.dims[entry.key().substr(prefix.size())] = value;
    }
  }
  for (const onnx::ValueInfoProto& input : model.graph().input()) {
    if (!input.type().has_tensor_type() || !input.type().tensor_type().has_shape()) continue;
    ModelBinding::Input dims{input.name(), {}};
    for (const onnx::TensorShapeProto::Dimension& dim : input.type().tensor_type().shape().dim()) {
      dims.dims.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
    }
    binding.inputs.push_back(std::move(dims));
  }
  return binding;
}

void CheckRunDims(const pb::Plan& plan, const std::string& plan_path,
                  const std::map<std::string, int64_t, std::less<>>& dims) {
  CheckDims(plan, plan_path, dims, "--dim");
}

void CheckRewrittenModel(const pb::Plan& plan, const BindingCheck& check,
                         const ModelBinding& binding) {
  CheckDims(plan, check.plan_path, binding.dims, check.model_path + " (its metadata)");
  CheckInputShapes(plan, check, binding);
  if (binding.plan_sha256 != check.plan_sha256) {
    Refuse(check.plan_path,
           fmt::format("{} was rewritten from another plan (sha256 {}), not this one ({})",
                       check.model_path, Short(binding.plan_sha256), Short(check.plan_sha256)));
  }
  const std::string& recorded = plan.provenance().model_sha256();
  if (binding.model_sha256 != recorded) {
    Refuse(check.plan_path,
           fmt::format("{} was rewritten from another model (sha256 {}), not the one this plan "
                       "was made for ({})",
                       check.model_path, Short(binding.model_sha256), Short(recorded)));
  }
}

}  // namespace hyperplan::onnx_rewrite
