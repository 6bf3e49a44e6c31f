// Building hyperplan Graphs from typed scopes (see graph_building.h).
#include "onnx/graph_building.h"

#include <fmt/format.h>

#include <algorithm>

#include "onnx/control_flow.h"
#include "onnx/tensor_sizing.h"

namespace hyperplan::onnx_import {
namespace {

constexpr size_t kValuesNamedPerSymbol = 3;
constexpr int64_t kUnknownSizesListed = 100;

bool IsIntAttribute(const onnx::AttributeProto& attribute) {
  return attribute.type() == onnx::AttributeProto::INT ||
         (attribute.type() == onnx::AttributeProto::UNDEFINED && attribute.has_i());
}

// AddNode appends consumers one by one; sizing each list first saves the regrowth, which on a
// 100k-node graph is a good part of building it.
void ReserveConsumers(const GraphScope& scope, const std::pmr::vector<ValueId>& value_of,
                      Graph& graph) {
  std::pmr::vector<int32_t> counts(graph.values.size(), 0, scope.memory());
  for (int32_t index : scope.order()) {
    const ScopeNode& node = scope.nodes()[index];
    for (const SlotList* slots : {&node.inputs, &node.captured}) {
      for (int32_t slot : *slots) {
        if (slot != kNoSlot) ++counts[value_of[slot]];
      }
    }
  }
  for (size_t id = 0; id < counts.size(); ++id) graph.values[id].consumers.reserve(counts[id]);
}

// A node's name, operator and values, its attributes and bodies not yet read.
Node NodeOf(const ScopeNode& scope_node, const std::pmr::vector<ValueId>& value_of) {
  const onnx::NodeProto& proto = *scope_node.proto;
  Node node;
  node.name = scope_node.name;
  node.op_type = proto.op_type();
  node.domain = IsDefaultDomain(proto.domain()) ? std::string() : proto.domain();
  node.inputs.reserve(scope_node.inputs.size() + scope_node.captured.size());
  for (int32_t slot : scope_node.inputs) {
    if (slot != kNoSlot) node.inputs.push_back(value_of[slot]);
  }
  // Values the bodies read from outside are inputs of this node as far as planning goes.
  for (int32_t slot : scope_node.captured) {
    const ValueId id = value_of[slot];
    if (std::find(node.inputs.begin(), node.inputs.end(), id) == node.inputs.end()) {
      node.inputs.push_back(id);
    }
  }
  node.outputs.reserve(scope_node.outputs.size());
  for (int32_t slot : scope_node.outputs) {
    if (slot != kNoSlot) node.outputs.push_back(value_of[slot]);
  }
  return node;
}

}  // namespace

GraphBuilder::GraphBuilder(ImportContext& context, DimBinding& binding)
    : context_(context), binding_(binding) {}

void GraphBuilder::SizeValue(const GraphScope& scope, const Slot& slot, Value& value) {
  SizingResult result;
  if (slot.initializer != nullptr) {
    result = SizeFromInitializer(*slot.initializer, value, scope.where(), context_);
  } else if (slot.sparse_initializer != nullptr) {
    result = SizeFromSparseInitializer(*slot.sparse_initializer, value, scope.where(), context_);
  } else {
    result = SizeFromType(slot.type, value, scope.where(), context_);
  }
  if (value.size_known) return;
  std::vector<std::string> symbols;
  for (const std::string& text : result.symbolic_dims) {
    for (const std::string& symbol : binding_.SymbolsBehind(text)) {
      if (std::find(symbols.begin(), symbols.end(), symbol) == symbols.end()) {
        symbols.push_back(symbol);
      }
    }
  }
  for (const std::string& symbol : symbols) {
    auto [index, inserted] = unbound_index_.try_emplace(symbol, unbound_.size());
    if (inserted) unbound_.push_back({symbol, {}, 0});
    UnboundDim& use = unbound_[index->second];
    if (use.values.size() < kValuesNamedPerSymbol) use.values.push_back(value.name);
    ++use.value_count;
  }
  const bool depends_on_unbound = !symbols.empty();
  if (depends_on_unbound) return;
  RecordUnknownSize(scope, slot, value, result.unknown_reason);
  if (++unknown_sizes_ <= kUnknownSizesListed) {
    context_.Warn(scope.where() + "value '" + value.name +
                  "' has unknown size: " + result.unknown_reason);
  }
}

// A captured slot stands for a value of an enclosing scope, which is recorded there.
void GraphBuilder::RecordUnknownSize(const GraphScope& scope, const Slot& slot, const Value& value,
                                     const std::string& reason) {
  if (slot.kind == SlotKind::kCaptured) return;
  UnknownSizeValue unknown;
  unknown.where = scope.where();
  unknown.name = value.name;
  unknown.reason = reason;
  unknown.is_string_or_not_tensor =
      value.dtype == DType::kString || (slot.type != nullptr && !slot.type->has_tensor_type() &&
                                        slot.type->value_case() != onnx::TypeProto::VALUE_NOT_SET);
  if (slot.kind == SlotKind::kNodeOutput && slot.producer >= 0) {
    const ScopeNode& producer = scope.nodes()[slot.producer];
    const onnx::NodeProto& proto = *producer.proto;
    unknown.producer = NodeLabel(producer.name, proto);
    unknown.op_type = proto.op_type();
    unknown.op_key =
        (IsDefaultDomain(proto.domain()) ? "" : proto.domain() + ".") + proto.op_type();
  }
  unknown_sizes_found_.Add(std::move(unknown));
}

namespace {

// Fused attention ops read operands by position (GroupQueryAttention's past_key is input 3,
// its k_scale input 12) and Node::inputs leaves omitted ones out, so where one is omitted
// before a later one, "input_positions" is the bitmask of the positions present
// (cost_rules::AttentionInput maps a position through it).
void RecordInputPositions(const onnx::NodeProto& proto, Node& node) {
  const std::string_view op = node.op_type;
  if (op != "GroupQueryAttention" && op != "MultiHeadAttention" && op != "Attention") return;
  if (proto.input_size() > 62) return;
  int64_t mask = 0;
  bool gap = false;
  for (int position = 0; position < proto.input_size(); ++position) {
    if (proto.input(position).empty()) {
      gap = true;
    } else {
      mask |= int64_t{1} << position;
    }
  }
  if (gap) node.int_attributes["input_positions"] = mask;
}

}  // namespace

void GraphBuilder::FillIntAttributes(const onnx::NodeProto& proto, const Graph& graph,
                                     Node& node) const {
  for (const onnx::AttributeProto& attribute : proto.attribute()) {
    if (IsIntAttribute(attribute)) node.int_attributes[attribute.name()] = attribute.i();
  }
  // Defaults from the operators' specs, so the cost model need not know them.
  auto& attributes = node.int_attributes;
  const std::string_view op = node.op_type;
  RecordInputPositions(proto, node);
  if (op == "MatMulNBits") {
    attributes.try_emplace("bits", 4);
  } else if (op == "Gemm") {
    attributes.try_emplace("transA", 0);
    attributes.try_emplace("transB", 0);
  } else if (op == "Conv" || op == "ConvTranspose" || op == "ConvInteger" || op == "QLinearConv") {
    attributes.try_emplace("group", 1);
  } else if (op == "GatherBlockQuantized") {
    attributes.try_emplace("bits", 4);
    attributes.try_emplace("block_size", 128);
    attributes.try_emplace("gather_axis", 0);
    attributes.try_emplace("quantize_axis", 1);
  } else if (op == "MultiHeadAttention" || op == "DecoderMaskedMultiHeadAttention" ||
             op == "PackedMultiHeadAttention" || op == "PackedAttention" ||
             (op == "Attention" && node.domain == "com.microsoft")) {
    // Query and key/value heads are the same in these (one num_heads).
    if (auto it = attributes.find("num_heads"); it != attributes.end()) {
      attributes.try_emplace("kv_num_heads", it->second);
    }
  } else if (op == "Attention" && node.domain.empty()) {
    // 4-D inputs carry the head counts as their dim 1 instead of as attributes.
    const auto heads_of = [&](size_t input) -> std::optional<int64_t> {
      if (node.inputs.size() <= input) return std::nullopt;
      const Value& value = graph.values[node.inputs[input]];
      if (value.shape.size() != 4) return std::nullopt;
      return value.shape[1];
    };
    if (auto heads = heads_of(0)) attributes.try_emplace("q_num_heads", *heads);
    if (auto heads = heads_of(1)) attributes.try_emplace("kv_num_heads", *heads);
  }
}

BuiltGraph GraphBuilder::Build(GraphScope& scope) {
  BuiltGraph built;
  Graph& graph = built.graph;
  graph.name = scope.graph().name();
  std::pmr::vector<ScopeNode>& scope_nodes = scope.nodes();
  graph.values.reserve(scope.slots().size());
  graph.nodes.reserve(scope_nodes.size());
  std::pmr::vector<ValueId> value_of(scope.slots().size(), kNoValue, scope.memory());
  AddValues(scope, built, value_of);
  ReserveConsumers(scope, value_of, graph);

  for (int32_t index : scope.order()) {
    ScopeNode& scope_node = scope_nodes[index];
    Node node = NodeOf(scope_node, value_of);
    FillIntAttributes(*scope_node.proto, graph, node);
    if (!scope_node.bodies.empty()) {
      std::vector<BodySummary> summaries;
      for (auto& body : scope_node.bodies) {
        BuiltGraph sub = Build(*body);
        summaries.push_back(SummariseBody(sub.graph, sub.captured));
      }
      ApplyBodySummaries(scope, scope_node, summaries, node, context_);
    }
    AddNode(graph, std::move(node));
  }
  return built;
}

// Values in slot order of kind: graph inputs, initializers, node outputs in topological order,
// then captured values; `value_of` maps each slot to its value.
void GraphBuilder::AddValues(const GraphScope& scope, BuiltGraph& built,
                             std::pmr::vector<ValueId>& value_of) {
  Graph& graph = built.graph;
  const SlotTable& slots = scope.slots();
  const auto add_value = [&](int32_t slot_id) {
    const Slot& slot = slots[slot_id];
    Value value;
    value.name = std::string(slot.name);
    value.is_initializer = slot.kind == SlotKind::kInitializer;
    value.is_graph_input = slot.kind == SlotKind::kGraphInput;
    value.is_graph_output = slot.is_graph_output;
    SizeValue(scope, slot, value);
    value_of[slot_id] = AddValue(graph, std::move(value));
    return value_of[slot_id];
  };
  for (int32_t slot : scope.input_slots()) graph.inputs.push_back(add_value(slot));
  for (int32_t slot : scope.initializer_slots()) add_value(slot);
  for (int32_t index : scope.order()) {
    for (int32_t slot : scope.nodes()[index].outputs) {
      if (slot != kNoSlot) add_value(slot);
    }
  }
  for (int32_t slot : scope.captured_slots()) built.captured.push_back(add_value(slot));
  for (int32_t slot : scope.output_slots()) graph.outputs.push_back(value_of[slot]);
}

std::vector<UnboundDim> GraphBuilder::UnboundDims() const { return unbound_; }

void GraphBuilder::Finish() {
  if (unknown_sizes_ > kUnknownSizesListed) {
    context_.Warn(fmt::format("{} more values of unknown size not listed",
                              unknown_sizes_ - kUnknownSizesListed));
  }
}

}  // namespace hyperplan::onnx_import
