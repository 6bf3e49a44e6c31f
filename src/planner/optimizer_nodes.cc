// The nodes of each layer's optimizer update (see optimizer_nodes.h).
#include "planner/optimizer_nodes.h"

#include <set>
#include <string>

#include "hyperplan/layers.h"

namespace hyperplan::planner {
namespace {

constexpr int kConflict = -2;  // seeded by two layers: in no update

bool IsWeight(const Value& value) {
  return value.producer == kNoNode && value.value_class == ValueClass::kWeight;
}

// The layer of a value the update owns: optimizer state, or a weight written in place.
std::optional<int> StateLayer(const Graph& graph, const std::vector<uint8_t>& persistent,
                              ValueId id) {
  const Value& value = graph.values[id];
  const bool state =
      !persistent.empty() && persistent[id] && value.value_class == ValueClass::kOptimizerState;
  const bool written_weight = IsWeight(value) && value.written_by != kNoNode;
  if (!state && !written_weight) return std::nullopt;
  return LayerOfWeight(value.name);
}

// A constant any part may read: a weight of no part, never written.
bool IsNeutralConstant(const Value& value) {
  return IsWeight(value) && value.written_by == kNoNode &&
         WeightPartOfName(value.name) == WeightPart::kNone;
}

void Join(std::optional<int>& slot, int layer) {
  if (!slot) {
    slot = layer;
  } else if (*slot != layer) {
    slot = kConflict;
  }
}

class UpdateClosure {
 public:
  UpdateClosure(const Graph& graph, const std::vector<uint8_t>& persistent)
      : graph_(graph), persistent_(persistent), layer_(graph.nodes.size()) {}

  std::vector<std::optional<int>> Run() {
    Seed();
    bool grew = true;
    while (grew) grew = GrowDown() | GrowUp();
    for (auto& layer : layer_) {
      if (layer == kConflict) layer.reset();
    }
    return std::move(layer_);
  }

 private:
  // Nodes that update or read the update's state.
  void Seed() {
    for (size_t n = 0; n < graph_.nodes.size(); ++n) {
      for (ValueId input : graph_.nodes[n].inputs) {
        if (input == kNoValue) continue;
        const std::optional<int> layer = StateLayer(graph_, persistent_, input);
        const bool writes = graph_.values[input].written_by == static_cast<NodeId>(n);
        const bool reads_state = graph_.values[input].value_class == ValueClass::kOptimizerState;
        if (layer && (writes || reads_state)) Join(layer_[n], *layer);
      }
    }
  }

  std::optional<int> LayerOfProducer(ValueId id) const {
    const NodeId producer = graph_.values[id].producer;
    if (producer == kNoNode || !layer_[producer] || *layer_[producer] == kConflict) {
      return std::nullopt;
    }
    return layer_[producer];
  }

  // Nodes reading only one layer's update outputs and neutral constants.
  bool GrowDown() {
    bool grew = false;
    for (size_t n = 0; n < graph_.nodes.size(); ++n) {
      if (layer_[n]) continue;
      std::optional<int> layer;
      bool only_update = true;
      for (ValueId input : graph_.nodes[n].inputs) {
        if (input == kNoValue || IsNeutralConstant(graph_.values[input])) continue;
        const std::optional<int> from = LayerOfProducer(input);
        if (!from || (layer && *layer != *from)) only_update = false;
        layer = from;
      }
      if (only_update && layer) {
        layer_[n] = layer;
        grew = true;
      }
    }
    return grew;
  }

  // Elementwise ops only: a contraction (the backward's Gemm) can have its output's shape at
  // every input when the token count equals a layer's width.
  static bool IsElementwise(const Node& node) {
    static const std::set<std::string, std::less<>> kOps = {
        "Abs", "Add", "Cast", "Clip",       "Div",  "Identity", "Max", "Min",
        "Mul", "Neg", "Pow",  "Reciprocal", "Sign", "Sqrt",     "Sub"};
    return node.domain.empty() && kOps.count(node.op_type) > 0;
  }

  bool SameShapeOrScalar(const Value& input, const Value& output) const {
    if (IsNeutralConstant(input) || input.shape.empty()) return true;
    return input.shape == output.shape;
  }

  // Whether `producer` only feeds layer `layer`'s update, elementwise over the parameter.
  bool Feeds(NodeId producer, int layer) const {
    const Node& node = graph_.nodes[producer];
    if (node.outputs.empty() || !IsElementwise(node)) return false;
    for (ValueId output : node.outputs) {
      const Value& value = graph_.values[output];
      if (value.is_graph_output) return false;
      for (NodeId consumer : value.consumers) {
        if (layer_[consumer] != layer) return false;
      }
    }
    const Value& first_output = graph_.values[node.outputs.front()];
    for (ValueId input : node.inputs) {
      if (input != kNoValue && !SameShapeOrScalar(graph_.values[input], first_output)) {
        return false;
      }
    }
    return true;
  }

  // Producers of the update's inputs that only feed it, elementwise (the gradient's cast).
  bool GrowUp() {
    bool grew = false;
    for (size_t n = 0; n < graph_.nodes.size(); ++n) {
      if (!layer_[n] || *layer_[n] == kConflict) continue;
      for (ValueId input : graph_.nodes[n].inputs) {
        if (input == kNoValue) continue;
        const NodeId producer = graph_.values[input].producer;
        if (producer == kNoNode || layer_[producer] || !Feeds(producer, *layer_[n])) continue;
        layer_[producer] = layer_[n];
        grew = true;
      }
    }
    return grew;
  }

  const Graph& graph_;
  const std::vector<uint8_t>& persistent_;
  std::vector<std::optional<int>> layer_;  // by NodeId
};

}  // namespace

std::vector<std::optional<int>> OptimizerLayers(const Graph& loop_graph,
                                                const std::vector<uint8_t>& persistent) {
  return UpdateClosure(loop_graph, persistent).Run();
}

}  // namespace hyperplan::planner
