// Name resolution, producer checks and ordering of one graph (see graph_scope.h).
#include "onnx/graph_scope.h"

#include <fmt/format.h>

#include <algorithm>

#include "onnx/topological_order.h"

namespace hyperplan::onnx_import {
namespace {

constexpr size_t kCycleNamesShown = 6;
constexpr int64_t kRenamesListed = 20;

const onnx::TensorProto* ConstantValue(const onnx::NodeProto& node) {
  if (node.op_type() != "Constant" || !IsDefaultDomain(node.domain())) return nullptr;
  for (const onnx::AttributeProto& attribute : node.attribute()) {
    if (attribute.name() == "value" && attribute.has_t()) return &attribute.t();
  }
  return nullptr;
}

}  // namespace

GraphScope::GraphScope(onnx::GraphProto& graph, GraphScope* parent, std::string where,
                       std::pmr::memory_resource* memory)
    : graph_(&graph),
      parent_(parent),
      where_(std::move(where)),
      memory_(memory),
      slots_(memory),
      slot_by_name_(memory),
      nodes_(memory),
      order_(memory),
      input_slots_(memory),
      initializer_slots_(memory),
      output_slots_(memory),
      captured_slots_(memory) {}

int32_t GraphScope::FindLocal(std::string_view name) const { return slot_by_name_.Find(name); }

bool GraphScope::IsVisible(std::string_view name) const {
  for (const GraphScope* scope = this; scope != nullptr; scope = scope->parent_) {
    if (scope->FindLocal(name) != kNoSlot) return true;
  }
  return false;
}

int32_t GraphScope::FindOrCapture(std::string_view name) {
  if (int32_t slot = FindLocal(name); slot != kNoSlot) return slot;
  if (parent_ == nullptr || !parent_->IsVisible(name)) return kNoSlot;
  Slot captured;
  captured.name = name;
  captured.kind = SlotKind::kCaptured;
  const int32_t slot = AddSlot(captured);
  captured_slots_.push_back(slot);
  return slot;
}

int32_t GraphScope::AddSlot(Slot slot) {
  const auto id = static_cast<int32_t>(slots_.size());
  slot_by_name_.Insert(slot.name, id);
  slots_.push_back(slot);
  return id;
}

void GraphScope::FailAtNode(const ScopeNode& node, const std::string& what,
                            const ImportContext& context) const {
  context.Fail(ErrorKind::kModel, where_ + NodeLabel(node.name, *node.proto) + ": " + what);
}

void GraphScope::Resolve(ImportContext& context) {
  const int node_count = graph_->node_size();
  slots_.reserve(graph_->input_size() + graph_->initializer_size() + 2 * node_count);
  slot_by_name_.Reserve(slots_.capacity());
  nodes_.reserve(node_count);
  for (onnx::NodeProto& proto : *graph_->mutable_node())
    nodes_.emplace_back(memory_).proto = &proto;

  AddInputsAndInitializers(context);
  NameNodes(context);
  AddNodeOutputs(context);
  ResolveNodeInputs(context);
  ResolveGraphOutputs(context);
  Order(context);
}

void GraphScope::AddInputsAndInitializers(ImportContext& context) {
  for (const onnx::ValueInfoProto& input : graph_->input()) {
    if (input.name().empty()) {
      context.Warn(where_ + "a graph input has no name; ignored");
      continue;
    }
    if (FindLocal(input.name()) != kNoSlot) {
      context.Warn(where_ + "graph input '" + input.name() + "' is listed twice");
      continue;
    }
    Slot slot;
    slot.name = input.name();
    slot.kind = SlotKind::kGraphInput;
    input_slots_.push_back(AddSlot(slot));
  }
  // Initializers named like a graph input (IR < 4 lists them among the inputs) are that input.
  const auto add_initializer = [&](std::string_view name, const onnx::TensorProto* dense,
                                   const onnx::SparseTensorProto* sparse) {
    int32_t id = FindLocal(name);
    if (id != kNoSlot && slots_[id].kind != SlotKind::kGraphInput) {
      context.Fail(ErrorKind::kModel,
                   where_ + "initializer '" + std::string(name) + "' is defined twice");
    }
    if (id == kNoSlot) {
      Slot slot;
      slot.name = name;
      id = AddSlot(slot);
    }
    Slot& slot = slots_[id];
    slot.kind = SlotKind::kInitializer;
    slot.initializer = dense;
    slot.sparse_initializer = sparse;
    slot.constant = dense;
    initializer_slots_.push_back(id);
  };
  for (const onnx::TensorProto& initializer : graph_->initializer()) {
    add_initializer(initializer.name(), &initializer, nullptr);
  }
  for (const onnx::SparseTensorProto& sparse : graph_->sparse_initializer()) {
    add_initializer(sparse.values().name(), nullptr, &sparse);
  }
  // Inputs that turned out to be initializers are not inputs; one pass keeps this linear.
  std::erase_if(input_slots_, [&](int32_t id) { return slots_[id].kind != SlotKind::kGraphInput; });
}

void GraphScope::NameNodes(ImportContext& context) {
  // Explicit names first, so a synthesised name never takes one the model gave.
  NameIndex taken(memory_);
  taken.Reserve(nodes_.size());
  std::pmr::vector<bool> keeps_name(nodes_.size(), false, memory_);
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const std::string& name = nodes_[i].proto->name();
    const auto id = static_cast<int32_t>(i);
    keeps_name[i] = !name.empty() && taken.Insert(name, id) == id;
  }
  int64_t renamed = 0;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    ScopeNode& node = nodes_[i];
    const std::string& given = node.proto->name();
    if (keeps_name[i]) {
      node.name.assign(given);
      continue;
    }
    std::string base = (given.empty() ? node.proto->op_type() : given) + "_" + std::to_string(i);
    std::string candidate = base;
    for (int suffix = 1; taken.Find(candidate) != NameIndex::kAbsent; ++suffix) {
      candidate = base + "_" + std::to_string(suffix);
    }
    if (!given.empty() && ++renamed <= kRenamesListed) {
      context.Warn(where_ + "node name '" + given + "' is used more than once; node " +
                   std::to_string(i) + " is called '" + candidate + "'");
    }
    node.name.assign(candidate);
    // nodes_ never reallocates after Resolve reserved it, so the view stays valid.
    taken.Insert(node.name, static_cast<int32_t>(i));
  }
  if (renamed > kRenamesListed) {
    context.Warn(where_ + std::to_string(renamed - kRenamesListed) +
                 " more nodes with a name used before were renamed");
  }
}

void GraphScope::AddNodeOutputs(ImportContext& context) {
  for (size_t i = 0; i < nodes_.size(); ++i) {
    ScopeNode& node = nodes_[i];
    const onnx::NodeProto& proto = *node.proto;
    node.outputs.reserve(proto.output_size());
    for (const std::string& output : proto.output()) {
      if (output.empty()) {
        node.outputs.push_back(kNoSlot);
        continue;
      }
      if (int32_t existing = FindLocal(output); existing != kNoSlot) {
        const Slot& other = slots_[existing];
        std::string owner;
        switch (other.kind) {
          case SlotKind::kGraphInput:
            owner = "a graph input";
            break;
          case SlotKind::kInitializer:
            owner = "an initializer";
            break;
          default:
            owner = NodeLabel(nodes_[other.producer].name, *nodes_[other.producer].proto);
            break;
        }
        FailAtNode(node, "output '" + output + "' is also produced by " + owner, context);
      }
      Slot slot;
      slot.name = output;
      slot.kind = SlotKind::kNodeOutput;
      slot.producer = static_cast<int32_t>(i);
      node.outputs.push_back(AddSlot(slot));
    }
    if (const onnx::TensorProto* value = ConstantValue(proto); value && !node.outputs.empty()) {
      if (node.outputs[0] != kNoSlot) slots_[node.outputs[0]].constant = value;
    }
  }
}

void GraphScope::ResolveNodeInputs(ImportContext& context) {
  for (ScopeNode& node : nodes_) {
    node.inputs.reserve(node.proto->input_size());
    for (const std::string& input : node.proto->input()) {
      if (input.empty()) {
        node.inputs.push_back(kNoSlot);
        continue;
      }
      const int32_t slot = FindOrCapture(input);
      if (slot == kNoSlot)
        FailAtNode(node, "input '" + input + "' is used but never produced", context);
      node.inputs.push_back(slot);
    }
    ResolveBodies(node, context);
  }
}

void GraphScope::ResolveBodies(ScopeNode& node, ImportContext& context) {
  for (onnx::AttributeProto& attribute : *node.proto->mutable_attribute()) {
    std::vector<onnx::GraphProto*> graphs;
    if (attribute.has_g()) graphs.push_back(attribute.mutable_g());
    for (onnx::GraphProto& graph : *attribute.mutable_graphs()) graphs.push_back(&graph);
    for (onnx::GraphProto* graph : graphs) {
      auto body = std::make_unique<GraphScope>(
          *graph, this,
          where_ + NodeLabel(node.name, *node.proto) + " body '" + attribute.name() + "': ",
          memory_);
      body->Resolve(context);
      for (int32_t inner : body->captured_slots_) {
        Slot& captured = body->slots_[inner];
        captured.outer_slot = FindOrCapture(captured.name);
        if (std::find(node.captured.begin(), node.captured.end(), captured.outer_slot) ==
            node.captured.end()) {
          node.captured.push_back(captured.outer_slot);
        }
      }
      node.bodies.push_back(std::move(body));
      node.body_names.push_back(attribute.name());
    }
  }
}

void GraphScope::ResolveGraphOutputs(ImportContext& context) {
  for (const onnx::ValueInfoProto& output : graph_->output()) {
    const int32_t slot = FindOrCapture(output.name());
    if (slot == kNoSlot) {
      context.Fail(ErrorKind::kModel,
                   where_ + "graph output '" + output.name() + "' is never produced");
    }
    slots_[slot].is_graph_output = true;
    output_slots_.push_back(slot);
  }
}

void GraphScope::Order(ImportContext& context) {
  const auto node_count = static_cast<int32_t>(nodes_.size());
  const auto producer_of = [&](int32_t slot) {
    return slot != kNoSlot && slots_[slot].kind == SlotKind::kNodeOutput ? slots_[slot].producer
                                                                         : -1;
  };
  // The common case: the model's order is already topological, checked in one pass.
  int32_t first_out_of_order = -1;
  for (int32_t i = 0; i < node_count && first_out_of_order < 0; ++i) {
    for (const auto* slots : {&nodes_[i].inputs, &nodes_[i].captured}) {
      for (int32_t slot : *slots) {
        if (producer_of(slot) >= i) first_out_of_order = i;
      }
    }
  }
  order_.resize(node_count);
  if (first_out_of_order < 0) {
    for (int32_t i = 0; i < node_count; ++i) order_[i] = i;
    return;
  }

  PredecessorLists predecessors;
  predecessors.offsets.reserve(node_count + 1);
  predecessors.offsets.push_back(0);
  for (const ScopeNode& node : nodes_) {
    for (const auto* slots : {&node.inputs, &node.captured}) {
      for (int32_t slot : *slots) {
        if (int32_t producer = producer_of(slot); producer >= 0) {
          predecessors.nodes.push_back(producer);
        }
      }
    }
    predecessors.offsets.push_back(static_cast<int32_t>(predecessors.nodes.size()));
  }
  TopologicalSort sorted = SortTopologically(predecessors);
  if (sorted.order.empty()) {
    std::string path;
    for (size_t i = 0; i < sorted.cycle.size() && i < kCycleNamesShown; ++i) {
      path += "'" + nodes_[sorted.cycle[i]].name + "' -> ";
    }
    path += sorted.cycle.size() > kCycleNamesShown ? "... -> " : "";
    path += "'" + nodes_[sorted.cycle[0]].name + "'";
    FailAtNode(nodes_[sorted.cycle[0]], "the graph has a cycle through this node: " + path,
               context);
  }
  order_.assign(sorted.order.begin(), sorted.order.end());
  context.Warn(where_ + "nodes are not in topological order (" +
               NodeLabel(nodes_[first_out_of_order].name, *nodes_[first_out_of_order].proto) +
               " comes before a producer of its inputs); sorted them");
}

}  // namespace hyperplan::onnx_import
