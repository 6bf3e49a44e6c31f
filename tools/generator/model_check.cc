#include "model_check.h"

#include <fmt/format.h>
#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include <exception>
#include <unordered_map>

#include "contrib_schemas.h"
#include "weight_store.h"

namespace hyperplan::gen {

namespace {

int64_t ElemBytes(int32_t data_type) {
  switch (data_type) {
    case onnx::TensorProto_DataType_FLOAT:
    case onnx::TensorProto_DataType_INT32:
      return 4;
    case onnx::TensorProto_DataType_BFLOAT16:
    case onnx::TensorProto_DataType_FLOAT16:
      return 2;
    case onnx::TensorProto_DataType_UINT8:
    case onnx::TensorProto_DataType_INT8:
      return 1;
    case onnx::TensorProto_DataType_INT64:
    case onnx::TensorProto_DataType_DOUBLE:
      return 8;
    default:
      return 0;
  }
}

bool IsExternal(const onnx::TensorProto& t) {
  return t.data_location() == onnx::TensorProto_DataLocation_EXTERNAL;
}

void CheckExternalLayout(const onnx::GraphProto& graph, CheckReport* report) {
  std::string location;
  int64_t end = 0;
  int64_t count = 0;
  for (const auto& t : graph.initializer()) {
    if (!IsExternal(t)) continue;
    std::map<std::string, std::string> entries;
    for (const auto& e : t.external_data()) entries[e.key()] = e.value();
    auto fail = [&](const std::string& why) {
      report->ok = false;
      report->lines.push_back(fmt::format("FAIL external data of {}: {}", t.name(), why));
    };
    if (!entries.count("location") || !entries.count("offset") || !entries.count("length")) {
      fail("missing location, offset or length");
      continue;
    }
    if (location.empty()) location = entries["location"];
    if (entries["location"] != location) fail("a second location " + entries["location"]);
    if (!t.raw_data().empty() || t.float_data_size() > 0) fail("also carries inline bytes");
    const int64_t offset = std::stoll(entries["offset"]);
    const int64_t length = std::stoll(entries["length"]);
    int64_t expected = ElemBytes(t.data_type());
    for (int64_t d : t.dims()) expected *= d;
    if (length != expected) fail(fmt::format("length {} but dims need {}", length, expected));
    const int64_t aligned =
        (end + kExternalAlignmentBytes - 1) / kExternalAlignmentBytes * kExternalAlignmentBytes;
    if (offset != aligned)
      fail(fmt::format("offset {} but the next aligned offset is {}", offset, aligned));
    end = offset + length;
    ++count;
  }
  if (count > 0) {
    report->lines.push_back(fmt::format(
        "external data: {} tensors in {}, {} bytes, offsets consecutive and {}-byte aligned", count,
        location, end, kExternalAlignmentBytes));
  }
}

// The model with external initializers turned into graph inputs of the same type and shape.
onnx::ModelProto WithoutExternalWeights(const onnx::ModelProto& model) {
  onnx::ModelProto view = model;
  auto* graph = view.mutable_graph();
  google::protobuf::RepeatedPtrField<onnx::TensorProto> kept;
  for (auto& t : *graph->mutable_initializer()) {
    if (!IsExternal(t)) {
      *kept.Add() = std::move(t);
      continue;
    }
    auto* input = graph->add_input();
    input->set_name(t.name());
    auto* tensor = input->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(t.data_type());
    auto* shape = tensor->mutable_shape();
    for (int64_t d : t.dims()) shape->add_dim()->set_dim_value(d);
  }
  graph->mutable_initializer()->Swap(&kept);
  return view;
}

void BindDims(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* values,
              const std::map<std::string, int64_t>& dims) {
  for (auto& v : *values) {
    if (!v.type().has_tensor_type()) continue;
    for (auto& d : *v.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim()) {
      auto it = dims.find(d.dim_param());
      if (d.has_dim_param() && it != dims.end()) d.set_dim_value(it->second);
    }
  }
}

struct ShapeCounts {
  int64_t outputs = 0;
  int64_t concrete = 0;  // every dim a number
  int64_t symbolic = 0;  // every dim a number or a named symbol
  std::vector<std::string> unknown;
};

ShapeCounts CountShapes(const onnx::GraphProto& graph) {
  std::unordered_map<std::string, const onnx::TypeProto*> types;
  for (const auto& v : graph.value_info()) types[v.name()] = &v.type();
  for (const auto& v : graph.output()) types[v.name()] = &v.type();
  ShapeCounts counts;
  for (const auto& node : graph.node()) {
    for (const auto& out : node.output()) {
      if (out.empty()) continue;
      ++counts.outputs;
      auto it = types.find(out);
      bool concrete = false;
      bool symbolic = false;
      if (it != types.end() && it->second->has_tensor_type() &&
          it->second->tensor_type().has_shape()) {
        concrete = symbolic = true;
        for (const auto& d : it->second->tensor_type().shape().dim()) {
          concrete = concrete && d.has_dim_value();
          // Inference names unknown dims "unk__<n>": those are not the model's symbols.
          symbolic = symbolic && (d.has_dim_value() ||
                                  (!d.dim_param().empty() && d.dim_param().rfind("unk__", 0) != 0));
        }
      }
      counts.concrete += concrete;
      counts.symbolic += symbolic;
      if (!concrete) counts.unknown.push_back(out);
    }
  }
  return counts;
}

bool Infer(onnx::ModelProto* model, const char* pass, CheckReport* report) {
  try {
    onnx::ShapeInferenceOptions options(/*check_type=*/true, /*strict_mode=*/1, /*data_prop=*/true);
    onnx::shape_inference::InferShapes(*model, onnx::OpSchemaRegistry::Instance(), options);
    return true;
  } catch (const std::exception& e) {
    report->ok = false;
    report->lines.push_back(fmt::format("FAIL shape inference ({}): {}", pass, e.what()));
    return false;
  }
}

}  // namespace

CheckReport CheckModel(const onnx::ModelProto& model, const std::map<std::string, int64_t>& dims,
                       bool require_concrete) {
  RegisterOrtContribSchemas();
  CheckReport report;
  CheckExternalLayout(model.graph(), &report);

  onnx::ModelProto view = WithoutExternalWeights(model);
  try {
    onnx::checker::check_model(view);
    report.lines.push_back("onnx checker: ok");
  } catch (const std::exception& e) {
    report.ok = false;
    report.lines.push_back(fmt::format("FAIL onnx checker: {}", e.what()));
  }

  onnx::ModelProto symbolic = view;
  if (Infer(&symbolic, "symbolic dims", &report)) {
    const ShapeCounts counts = CountShapes(symbolic.graph());
    report.lines.push_back(fmt::format(
        "shape inference, symbolic dims: {} of {} node outputs shaped in numbers and the model's "
        "dim names{}",
        counts.symbolic, counts.outputs,
        counts.symbolic == counts.outputs || !require_concrete
            ? ""
            : " (the others hold a dim inference leaves unnamed, such as past_sequence + "
              "sequence)"));
  }

  onnx::ModelProto bound = std::move(view);
  BindDims(bound.mutable_graph()->mutable_input(), dims);
  BindDims(bound.mutable_graph()->mutable_output(), dims);
  std::string binding;
  for (const auto& [name, size] : dims) binding += fmt::format(" {}={}", name, size);
  if (Infer(&bound, "bound dims", &report)) {
    const ShapeCounts counts = CountShapes(bound.graph());
    report.lines.push_back(
        fmt::format("shape inference, bound dims ({}): {} of {} node outputs have concrete shapes",
                    binding.empty() ? "none" : binding.substr(1), counts.concrete, counts.outputs));
    if (!counts.unknown.empty() && !require_concrete) {
      report.lines.push_back(fmt::format(
          "ONNX's own inference leaves {} node outputs without a concrete shape (first: {}); "
          "hyperplan's import folds their shape arithmetic",
          counts.unknown.size(), counts.unknown.front()));
    } else if (!counts.unknown.empty()) {
      report.ok = false;
      for (size_t i = 0; i < counts.unknown.size() && i < 10; ++i)
        report.lines.push_back("FAIL no concrete shape: " + counts.unknown[i]);
    }
  }
  return report;
}

}  // namespace hyperplan::gen
