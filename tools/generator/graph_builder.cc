#include "graph_builder.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <bit>
#include <stdexcept>
#include <utility>

namespace hyperplan::gen {

onnx::AttributeProto AttrInt(const std::string& name, int64_t value) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto_AttributeType_INT);
  a.set_i(value);
  return a;
}

onnx::AttributeProto AttrInts(const std::string& name, const std::vector<int64_t>& values) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto_AttributeType_INTS);
  for (int64_t v : values) a.add_ints(v);
  return a;
}

onnx::AttributeProto AttrFloat(const std::string& name, float value) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto_AttributeType_FLOAT);
  a.set_f(value);
  return a;
}

onnx::AttributeProto AttrString(const std::string& name, const std::string& value) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto_AttributeType_STRING);
  a.set_s(value);
  return a;
}

onnx::AttributeProto AttrTensor(const std::string& name, onnx::TensorProto value) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto_AttributeType_TENSOR);
  *a.mutable_t() = std::move(value);
  return a;
}

GraphBuilder::GraphBuilder(onnx::GraphProto* graph, WeightStore* weights, ElemType dtype)
    : graph_(graph), weights_(weights), dtype_(dtype) {}

void GraphBuilder::ClaimNodeName(const std::string& name) {
  if (!node_names_.insert(name).second) throw std::logic_error("duplicate node name " + name);
}

std::vector<std::string> GraphBuilder::OutputNames(const std::string& name, int64_t count) {
  std::vector<std::string> names;
  names.reserve(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) names.push_back(fmt::format("{}/output_{}", name, i));
  return names;
}

std::string GraphBuilder::Op(const std::string& op_type, const std::vector<std::string>& inputs,
                             const std::string& name, std::vector<onnx::AttributeProto> attrs,
                             const std::string& output) {
  std::string out = output.empty() ? name + "/output_0" : output;
  OpOutputs(op_type, "", inputs, {out}, name, std::move(attrs));
  return out;
}

void GraphBuilder::OpOutputs(const std::string& op_type, const std::string& domain,
                             const std::vector<std::string>& inputs,
                             const std::vector<std::string>& outputs, const std::string& name,
                             std::vector<onnx::AttributeProto> attrs) {
  ClaimNodeName(name);
  onnx::NodeProto* node = graph_->add_node();
  node->set_name(name);
  node->set_op_type(op_type);
  if (!domain.empty()) node->set_domain(domain);
  for (const auto& in : inputs) node->add_input(in);
  for (const auto& out : outputs) node->add_output(out);
  for (auto& a : attrs) *node->add_attribute() = std::move(a);
}

std::string GraphBuilder::Constant(const std::string& key, onnx::TensorProto tensor) {
  auto it = constants_.find(key);
  if (it != constants_.end()) return it->second;
  tensor.set_name(key);
  *graph_->add_initializer() = std::move(tensor);
  constants_.emplace(key, key);
  return key;
}

std::string GraphBuilder::Int64s(const std::vector<int64_t>& values) {
  std::string key = "const.i64.[" + fmt::format("{}", fmt::join(values, ",")) + "]";
  if (constants_.count(key)) return constants_[key];
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto_DataType_INT64);
  t.add_dims(static_cast<int64_t>(values.size()));
  for (int64_t v : values) t.add_int64_data(v);
  return Constant(key, std::move(t));
}

std::string GraphBuilder::Int64Scalar(int64_t value) {
  std::string key = fmt::format("const.i64.{}", value);
  if (constants_.count(key)) return constants_[key];
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto_DataType_INT64);
  t.add_int64_data(value);
  return Constant(key, std::move(t));
}

std::string GraphBuilder::FloatScalar(float value, ElemType type) {
  // The bit pattern keys the constant, so -0.0 and 0.0 or two NaNs never alias wrongly.
  std::string key = fmt::format("const.{}.{:g}#{:08x}", ElemTypeName(type), value,
                                std::bit_cast<uint32_t>(value));
  if (constants_.count(key)) return constants_[key];
  onnx::TensorProto t;
  t.set_data_type(OnnxType(type));
  AppendValue(type, value, t.mutable_raw_data());
  return Constant(key, std::move(t));
}

std::string GraphBuilder::FloatTable(const std::string& key, const std::vector<float>& values,
                                     ElemType type) {
  const std::string full_key = fmt::format("const.{}.{}", ElemTypeName(type), key);
  if (constants_.count(full_key)) return constants_[full_key];
  onnx::TensorProto t;
  t.set_data_type(OnnxType(type));
  t.add_dims(static_cast<int64_t>(values.size()));
  for (float v : values) AppendValue(type, v, t.mutable_raw_data());
  return Constant(full_key, std::move(t));
}

std::string GraphBuilder::Weight(const std::string& name, const std::vector<int64_t>& dims,
                                 const std::function<std::vector<float>()>& values) {
  weights_->AddFloat(graph_->add_initializer(), name, dims, dtype_, values);
  return name;
}

std::string GraphBuilder::WeightOfType(const std::string& name, const std::vector<int64_t>& dims,
                                       ElemType type,
                                       const std::function<std::vector<float>()>& values) {
  weights_->AddFloat(graph_->add_initializer(), name, dims, type, values);
  return name;
}

std::string GraphBuilder::WeightBytes(const std::string& name, const std::vector<int64_t>& dims,
                                      int32_t onnx_type, int64_t elem_size_bytes,
                                      const std::function<std::string()>& bytes) {
  weights_->AddBytes(graph_->add_initializer(), name, dims, onnx_type, elem_size_bytes, bytes);
  return name;
}

namespace {

void Declare(onnx::ValueInfoProto* info, const std::string& name, int32_t onnx_type,
             const std::vector<Dim>& dims) {
  info->set_name(name);
  auto* tensor = info->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(onnx_type);
  auto* shape = tensor->mutable_shape();
  for (const Dim& d : dims) {
    auto* dim = shape->add_dim();
    if (const auto* size = std::get_if<int64_t>(&d)) {
      dim->set_dim_value(*size);
    } else {
      dim->set_dim_param(std::get<std::string>(d));
    }
  }
}

}  // namespace

void GraphBuilder::Input(const std::string& name, int32_t onnx_type, const std::vector<Dim>& dims) {
  Declare(graph_->add_input(), name, onnx_type, dims);
}

void GraphBuilder::Output(const std::string& name, int32_t onnx_type,
                          const std::vector<Dim>& dims) {
  Declare(graph_->add_output(), name, onnx_type, dims);
}

}  // namespace hyperplan::gen
