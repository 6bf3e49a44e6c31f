// GraphScope: one ONNX graph (the model's, or a control-flow body) with its names resolved to
// dense slots, checked, and put in topological order.
//
// Every value a graph can read gets a slot: its inputs, initializers and node outputs, plus the
// values of enclosing graphs that its nodes capture. Resolution checks what the importer
// promises: every used name is produced exactly once, every graph output exists, and the nodes
// form a DAG (a cycle is reported by naming a node on it). Nodes out of topological order but
// acyclic are sorted stably (Kahn's algorithm, lowest original index first) with a warning.
// Bodies are resolved recursively, and what they capture becomes extra inputs of their node
// here, so ordering accounts for it. Node names are made unique ("OpType_<index>" for unnamed
// nodes). Cost: O(nodes + edges) hash lookups by name; the sort adds O(n log n) only for a
// graph that is out of order.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <memory>
#include <memory_resource>
#include <string>
#include <string_view>
#include <vector>

#include "onnx/import_context.h"
#include "onnx/name_index.h"

namespace hyperplan::onnx_import {

inline constexpr int32_t kNoSlot = -1;

enum class SlotKind : uint8_t { kGraphInput, kInitializer, kNodeOutput, kCaptured };

struct Slot {
  std::string_view name;  // points into the model, which outlives the scope
  SlotKind kind = SlotKind::kNodeOutput;
  int32_t producer = -1;         // kNodeOutput: index into GraphScope::nodes
  int32_t outer_slot = kNoSlot;  // kCaptured: the slot in the enclosing scope
  bool is_graph_output = false;
  const onnx::TensorProto* initializer = nullptr;  // kInitializer (dense)
  const onnx::SparseTensorProto* sparse_initializer = nullptr;
  const onnx::TensorProto* constant = nullptr;  // known contents: initializer or Constant output
  // Filled by shape propagation: the model's declaration and the best type known.
  const onnx::TypeProto* declared = nullptr;
  const onnx::TypeProto* type = nullptr;
  const onnx::TensorShapeProto* data = nullptr;  // contents found by data propagation
  const onnx::TensorProto* folded = nullptr;     // `data` as a constant, made when inference asks
};

using SlotTable = std::pmr::vector<Slot>;
using SlotList = std::pmr::vector<int32_t>;

class GraphScope;

struct ScopeNode {
  explicit ScopeNode(std::pmr::memory_resource* memory)
      : name(memory), inputs(memory), outputs(memory), captured(memory) {}

  onnx::NodeProto* proto = nullptr;  // mutable: ONNX's body inference annotates its graphs
  std::pmr::string name;             // unique within the scope
  SlotList inputs;                   // one per proto input; kNoSlot where omitted ("")
  SlotList outputs;                  // one per proto output; kNoSlot where omitted
  SlotList captured;                 // slots its bodies read from here or above, deduplicated
  std::vector<std::unique_ptr<GraphScope>> bodies;  // in attribute order
  std::vector<std::string> body_names;              // the attribute holding each body
};

class GraphScope {
 public:
  // `where` prefixes messages about this scope ("" for the model's graph). The scope's tables
  // live in `memory`, which must outlive it.
  GraphScope(onnx::GraphProto& graph, GraphScope* parent, std::string where,
             std::pmr::memory_resource* memory);

  // Resolves names (bodies included), checks producers and orders the nodes. Throws
  // Error(kModel) naming the node or value at fault.
  void Resolve(ImportContext& context);

  onnx::GraphProto& graph() const { return *graph_; }
  GraphScope* parent() const { return parent_; }
  const std::string& where() const { return where_; }

  std::pmr::memory_resource* memory() const { return memory_; }
  SlotTable& slots() { return slots_; }
  const SlotTable& slots() const { return slots_; }
  std::pmr::vector<ScopeNode>& nodes() { return nodes_; }
  const std::pmr::vector<ScopeNode>& nodes() const { return nodes_; }
  const SlotList& order() const { return order_; }  // indices into nodes()
  const SlotList& input_slots() const { return input_slots_; }
  const SlotList& initializer_slots() const { return initializer_slots_; }
  const SlotList& output_slots() const { return output_slots_; }
  const SlotList& captured_slots() const { return captured_slots_; }

  // The local slot named `name`, or kNoSlot.
  int32_t FindLocal(std::string_view name) const;

 private:
  bool IsVisible(std::string_view name) const;
  // The slot `name` refers to from here: local, or captured from an enclosing scope.
  int32_t FindOrCapture(std::string_view name);
  int32_t AddSlot(Slot slot);
  void AddInputsAndInitializers(ImportContext& context);
  void NameNodes(ImportContext& context);
  void AddNodeOutputs(ImportContext& context);
  void ResolveNodeInputs(ImportContext& context);
  void ResolveBodies(ScopeNode& node, ImportContext& context);
  void ResolveGraphOutputs(ImportContext& context);
  void Order(ImportContext& context);
  [[noreturn]] void FailAtNode(const ScopeNode& node, const std::string& what,
                               const ImportContext& context) const;

  onnx::GraphProto* graph_;
  GraphScope* parent_;
  std::string where_;
  std::pmr::memory_resource* memory_;
  SlotTable slots_;
  NameIndex slot_by_name_;
  std::pmr::vector<ScopeNode> nodes_;
  SlotList order_;
  SlotList input_slots_;        // graph inputs that are not initializers
  SlotList initializer_slots_;  // in model order
  SlotList output_slots_;       // graph outputs in model order
  SlotList captured_slots_;     // in first-use order
};

}  // namespace hyperplan::onnx_import
