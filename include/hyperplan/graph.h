// Graph: the planner's intermediate representation of a model.
//
// Dense ids: nodes and values are indices into two vectors, so every analysis is a flat array
// walk. The graph is built once by an importer (or by a few lines of C++ in a test) and then
// read only; analyses return new results instead of annotating it. Shapes are concrete: the
// importer has already bound symbolic dimensions. A value whose size could not be determined
// has size_known == false and bytes == 0; it is listed in `warnings` and flagged in outputs.
//
// Limits: a Node's control-flow bodies are summarised (peak bytes, FLOPs) rather than kept as
// nested graphs, so planning treats If/Loop/Scan as one step.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hyperplan/dtype.h"

namespace hyperplan {

using NodeId = int32_t;
using ValueId = int32_t;
inline constexpr NodeId kNoNode = -1;
inline constexpr ValueId kNoValue = -1;

// What a value is to the planner; decides which offload policy applies.
enum class ValueClass : uint8_t {
  kWeight,          // an initializer: constant for the whole run
  kGraphInput,      // fed by the caller
  kGraphOutput,     // returned to the caller
  kActivation,      // produced and consumed inside the graph
  kKvCache,         // attention key/value cache (input past_*, output present_*)
  kOptimizerState,  // optimizer moments and similar training state
};
inline constexpr int kValueClassCount = 6;

std::string_view ValueClassName(ValueClass value_class);              // "weight", "kv_cache", ...
std::ostream& operator<<(std::ostream& out, ValueClass value_class);  // its name
std::optional<ValueClass> ParseValueClass(std::string_view name);

struct Value {
  std::string name;
  DType dtype = DType::kUndefined;
  std::vector<int64_t> shape;  // concrete dims; empty for a scalar
  bool size_known = false;     // false: unknown rank, dim or element size; bytes is then 0
  int64_t bytes = 0;
  ValueClass value_class = ValueClass::kActivation;
  bool is_initializer = false;
  bool is_graph_input = false;
  bool is_graph_output = false;
  bool is_external_data = false;  // an initializer whose bytes live in an external file
  NodeId producer = kNoNode;      // kNoNode for initializers and graph inputs
  std::vector<NodeId> consumers;  // each consuming node once, in node order
  // Loop graphs (loop.h) only: the node that updates this input in place each iteration, and
  // the bytes that update changes (what a Store must write back to the home copy).
  NodeId written_by = kNoNode;
  int64_t written_bytes = 0;
};

struct Node {
  std::string name;  // unique within the graph (importers synthesise one when absent)
  std::string op_type;
  std::string domain;            // "" for the default ONNX domain
  std::vector<ValueId> inputs;   // omitted optional inputs are left out
  std::vector<ValueId> outputs;  // omitted optional outputs are left out
  // Integer attributes the cost model reads (e.g. MatMulNBits "K", "N", "bits", "block_size";
  // Gemm "transA"; Conv "group"). Everything else stays in the model.
  std::map<std::string, int64_t, std::less<>> int_attributes;
  // Control flow (If, Loop, Scan): transient bytes the bodies need while this node runs, and
  // the bodies' work, both summed over the iterations the importer could count.
  int64_t subgraph_peak_bytes = 0;
  int64_t subgraph_flops = 0;
  int64_t subgraph_bytes_accessed = 0;
};

// A symbolic dimension no binding gave a value that decides sizes (an importer fills these
// only when asked to size what it can instead of failing).
struct UnboundDim {
  std::string name;
  std::vector<std::string> values;  // the first few values whose size it decides
  int64_t value_count = 0;          // all of them
};

struct Graph {
  std::string name;
  std::vector<Node> nodes;  // a topological order (the model's own where it was one)
  std::vector<Value> values;
  std::vector<ValueId> inputs;   // graph inputs that are not initializers, in model order
  std::vector<ValueId> outputs;  // graph outputs, in model order
  std::map<std::string, int64_t, std::less<>> bound_dims;  // symbolic dims the sizes assume
  std::vector<std::string> warnings;                       // e.g. values of unknown size
  // What the importer decided that a user may want to know (shown at -v), e.g. an inferred dim
  // that replaced a declared symbol.
  std::vector<std::string> notes;
  // Files the model's external-data tensors name, resolved against the model's directory,
  // distinct, in first-reference order (never opened; outputs must not land on them).
  std::vector<std::string> external_data_files;
  // In order of discovery; their values have size_known == false.
  std::vector<UnboundDim> unbound_dims;
  // A measured routing profile (--expert-stats): per routed node name, each expert's per-token
  // selection probability (routing.h): a com.microsoft MoE/QMoE node's name, or, in the gather
  // form, the name of each expert Gather of the layer (its gate/up/down tables and their
  // scales all hold the layer's one list, so they agree). Nodes not named here route uniformly.
  std::map<std::string, std::vector<double>, std::less<>> expert_selection;

  // Linear scan; for tests and error messages, not hot paths.
  ValueId FindValue(std::string_view name) const;
  NodeId FindNode(std::string_view name) const;
};

// Adds a value and returns its id; tests and importers build graphs with these.
ValueId AddValue(Graph& graph, Value value);
// Adds a node and links it as producer of its outputs and consumer of its inputs.
NodeId AddNode(Graph& graph, Node node);

}  // namespace hyperplan
