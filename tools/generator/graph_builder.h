// Appends nodes, graph inputs/outputs and initializers to one onnx::GraphProto. Every value is
// named after the node that makes it ("<node>/output_<i>") unless the caller names it, and small
// constants (shapes, axes, scalars) are made once and shared by every node that uses them.
// Cost: O(1) amortized per node or constant (hash lookups); memory is the proto itself.
// Limits: node names must be unique (a repeat throws std::logic_error); attribute helpers cover
// the int, ints, float, string and tensor kinds the generator uses.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

#include "elem_type.h"
#include "weight_store.h"

namespace hyperplan::gen {

// A dimension of a declared input or output: a size, or a symbol such as "batch".
using Dim = std::variant<int64_t, std::string>;

onnx::AttributeProto AttrInt(const std::string& name, int64_t value);
onnx::AttributeProto AttrInts(const std::string& name, const std::vector<int64_t>& values);
onnx::AttributeProto AttrFloat(const std::string& name, float value);
onnx::AttributeProto AttrString(const std::string& name, const std::string& value);
onnx::AttributeProto AttrTensor(const std::string& name, onnx::TensorProto value);

inline constexpr const char* kMsDomain = "com.microsoft";

class GraphBuilder {
 public:
  GraphBuilder(onnx::GraphProto* graph, WeightStore* weights, ElemType dtype);

  ElemType dtype() const { return dtype_; }
  WeightStore& weights() { return *weights_; }
  int64_t node_count() const { return graph_->node_size(); }

  // Adds node `name` with one output, named `output` or "<name>/output_0"; returns that name.
  std::string Op(const std::string& op_type, const std::vector<std::string>& inputs,
                 const std::string& name, std::vector<onnx::AttributeProto> attrs = {},
                 const std::string& output = {});
  // Adds node `name` of `domain` with the given outputs ("" leaves an optional one absent).
  void OpOutputs(const std::string& op_type, const std::string& domain,
                 const std::vector<std::string>& inputs, const std::vector<std::string>& outputs,
                 const std::string& name, std::vector<onnx::AttributeProto> attrs = {});
  // "<name>/output_0" .. "<name>/output_<count-1>".
  static std::vector<std::string> OutputNames(const std::string& name, int64_t count);

  // Shared inline constants.
  std::string Int64s(const std::vector<int64_t>& values);  // 1-D
  std::string Int64Scalar(int64_t value);                  // 0-D
  std::string FloatScalar(float value, ElemType type);     // 0-D
  // A 1-D inline table (a lookup table), keyed by `key`, which must name its values.
  std::string FloatTable(const std::string& key, const std::vector<float>& values, ElemType type);

  // A float weight in the model's element type; `values` runs only for inline weights.
  std::string Weight(const std::string& name, const std::vector<int64_t>& dims,
                     const std::function<std::vector<float>()>& values);
  // The same in another element type (e.g. a float32 bias in a bfloat16 model).
  std::string WeightOfType(const std::string& name, const std::vector<int64_t>& dims, ElemType type,
                           const std::function<std::vector<float>()>& values);
  // A weight already in stored bytes (for example packed 4-bit blocks).
  std::string WeightBytes(const std::string& name, const std::vector<int64_t>& dims,
                          int32_t onnx_type, int64_t elem_size_bytes,
                          const std::function<std::string()>& bytes);

  void Input(const std::string& name, int32_t onnx_type, const std::vector<Dim>& dims);
  void Output(const std::string& name, int32_t onnx_type, const std::vector<Dim>& dims);

 private:
  std::string Constant(const std::string& key, onnx::TensorProto tensor);
  void ClaimNodeName(const std::string& name);

  onnx::GraphProto* graph_;
  WeightStore* weights_;
  ElemType dtype_;
  std::unordered_set<std::string> node_names_;
  std::unordered_map<std::string, std::string> constants_;  // key -> initializer name
};

}  // namespace hyperplan::gen
