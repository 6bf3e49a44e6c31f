// Test helper: tiny ONNX models built in code, written to a temporary directory, imported.
//
// Tests state shapes as {2, "batch", kUnknownDim}; element types as ONNX codes (ints, so codes
// newer than ONNX 1.12's enum work). Models go to one temporary directory per test process,
// removed at exit.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "hyperplan/adapters/onnx_import.h"
#include "hyperplan/graph.h"

namespace hyperplan::test {

struct UnknownDim {};
inline constexpr UnknownDim kUnknownDim{};
using DimSpec = std::variant<int64_t, std::string, UnknownDim>;
using Shape = std::vector<DimSpec>;

// ONNX element type codes used in tests.
inline constexpr int32_t kFloat = 1;
inline constexpr int32_t kUint8 = 2;
inline constexpr int32_t kInt32 = 6;
inline constexpr int32_t kInt64 = 7;
inline constexpr int32_t kString = 8;
inline constexpr int32_t kBool = 9;
inline constexpr int32_t kFloat16 = 10;

onnx::ModelProto MakeModel(int64_t opset = 17);
void AddOpset(onnx::ModelProto& model, const std::string& domain, int64_t version);

onnx::ValueInfoProto* AddInput(onnx::GraphProto& graph, const std::string& name, int32_t elem_type,
                               const Shape& shape);
// An input whose type has no shape at all (unknown rank).
onnx::ValueInfoProto* AddInputOfUnknownRank(onnx::GraphProto& graph, const std::string& name,
                                            int32_t elem_type);
onnx::ValueInfoProto* AddOutput(onnx::GraphProto& graph, const std::string& name, int32_t elem_type,
                                const Shape& shape);
// A graph output without any type: what inference finds is all there is.
onnx::ValueInfoProto* AddUntypedOutput(onnx::GraphProto& graph, const std::string& name);
onnx::ValueInfoProto* AddValueInfo(onnx::GraphProto& graph, const std::string& name,
                                   int32_t elem_type, const Shape& shape);

// An initializer with zero-filled raw data.
onnx::TensorProto* AddInitializer(onnx::GraphProto& graph, const std::string& name,
                                  int32_t elem_type, const std::vector<int64_t>& dims);
onnx::TensorProto* AddInt64Initializer(onnx::GraphProto& graph, const std::string& name,
                                       const std::vector<int64_t>& dims,
                                       const std::vector<int64_t>& values);
// An initializer whose data lives in `location` (which tests never create).
onnx::TensorProto* AddExternalInitializer(onnx::GraphProto& graph, const std::string& name,
                                          int32_t elem_type, const std::vector<int64_t>& dims,
                                          const std::string& location, int64_t offset);

onnx::NodeProto* AddNode(onnx::GraphProto& graph, const std::string& op_type,
                         const std::vector<std::string>& inputs,
                         const std::vector<std::string>& outputs, const std::string& name = "",
                         const std::string& domain = "");
void SetAttribute(onnx::NodeProto* node, const std::string& name, int64_t value);
void SetAttribute(onnx::NodeProto* node, const std::string& name,
                  const std::vector<int64_t>& values);
void SetAttribute(onnx::NodeProto* node, const std::string& name, const onnx::GraphProto& graph);
void SetAttribute(onnx::NodeProto* node, const std::string& name, const onnx::TensorProto& tensor);

// Writes the model under the test directory and returns its path.
std::string WriteModel(const onnx::ModelProto& model, const std::string& file_name);
// A path under the test directory (for files a test writes itself).
std::string TestPath(const std::string& file_name);

// Writes and imports.
Graph Import(const onnx::ModelProto& model, const ImportOptions& options = {},
             const std::string& file_name = "model.onnx");

// The value named `name`; fails the test when there is none.
const Value& ValueNamed(const Graph& graph, const std::string& name);
const Node& NodeNamed(const Graph& graph, const std::string& name);
bool HasWarningContaining(const Graph& graph, const std::string& text);
// All warnings, one per line, for INFO() when a check fails.
std::string JoinedWarnings(const Graph& graph);

}  // namespace hyperplan::test
