// Body nesting and function call checks (see model_structure.h).
#include "onnx/model_structure.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "onnx/schema_registry.h"

namespace hyperplan::onnx_import {
namespace {

using Nodes = google::protobuf::RepeatedPtrField<onnx::NodeProto>;

constexpr size_t kChainNamesShown = 6;

// "custom.F" for messages; the key local_functions uses is "custom:F".
std::string FunctionName(const std::string& domain, const std::string& name) {
  return domain.empty() ? name : domain + "." + name;
}

std::string FunctionKey(const std::string& domain, const std::string& name) {
  return domain + ":" + name;
}

// "node 'NAME' (OpType)", naming an unnamed node "OpType_<index>" as the importer does.
std::string Label(const onnx::NodeProto& node, int index) {
  return NodeLabel(node.name().empty() ? node.op_type() + "_" + std::to_string(index) : node.name(),
                   node);
}

using NodeVisitor =
    std::function<void(const onnx::NodeProto& node, const std::string& where_and_label)>;

// Calls `visit` on every node of `nodes` and of the bodies below them (whose depth is checked
// before this runs), with the node's label prefixed by the bodies around it.
void ForEachNode(const Nodes& nodes, const std::string& where, const NodeVisitor& visit) {
  for (int i = 0; i < nodes.size(); ++i) {
    const onnx::NodeProto& node = nodes[i];
    const std::string label = Label(node, i);
    visit(node, where + label);
    for (const onnx::AttributeProto& attribute : node.attribute()) {
      const std::string body_where = where + label + " body '" + attribute.name() + "': ";
      if (attribute.has_g()) ForEachNode(attribute.g().node(), body_where, visit);
      for (const onnx::GraphProto& graph : attribute.graphs()) {
        ForEachNode(graph.node(), body_where, visit);
      }
    }
  }
}

// The body-nesting limit, checked on the way down so the walk itself stays shallow.
void CheckBodyNesting(const Nodes& nodes, const std::string& where, int depth,
                      const ImportContext& context) {
  for (int i = 0; i < nodes.size(); ++i) {
    const onnx::NodeProto& node = nodes[i];
    for (const onnx::AttributeProto& attribute : node.attribute()) {
      if (!attribute.has_g() && attribute.graphs_size() == 0) continue;
      const std::string label = Label(node, i);
      if (depth + 1 > kMaxBodyNesting) {
        context.Fail(ErrorKind::kModel,
                     fmt::format("{}{} body '{}': control-flow bodies nest more than {} deep "
                                 "(hyperplan's limit)",
                                 where, label, attribute.name(), kMaxBodyNesting));
      }
      const std::string body_where = where + label + " body '" + attribute.name() + "': ";
      if (attribute.has_g()) CheckBodyNesting(attribute.g().node(), body_where, depth + 1, context);
      for (const onnx::GraphProto& graph : attribute.graphs()) {
        CheckBodyNesting(graph.node(), body_where, depth + 1, context);
      }
    }
  }
}

// The model-local function call graph, in model order.
class FunctionCalls {
 public:
  FunctionCalls(const onnx::ModelProto& model, const ImportContext& context)
      : model_(model), context_(context) {
    for (const onnx::FunctionProto& function : model.functions()) {
      index_.emplace(FunctionKey(function.domain(), function.name()), names_.size());
      names_.push_back(FunctionName(function.domain(), function.name()));
      domains_.insert(function.domain());
    }
    callees_.resize(names_.size());
  }

  void Check() {
    ForEachNode(
        model_.graph().node(), "",
        [&](const onnx::NodeProto& node, const std::string& label) { CallTarget(node, label); });
    for (int f = 0; f < model_.functions_size(); ++f) {
      const onnx::FunctionProto& function = model_.functions(f);
      const std::string where = "function '" + names_[f] + "': ";
      ForEachNode(
          function.node(), where, [&](const onnx::NodeProto& node, const std::string& label) {
            const std::optional<size_t> callee = CallTarget(node, label);
            if (callee &&
                std::find(callees_[f].begin(), callees_[f].end(), *callee) == callees_[f].end()) {
              callees_[f].push_back(*callee);
            }
          });
    }
    const std::vector<size_t> order = CalleesFirstOrder();
    CheckAcyclic(order);
    CheckDepth(order);
  }

 private:
  // The local function `node` calls, if any; Error(kModel) for a call into a domain of local
  // functions that names none of them and no known operator. `label` names the node.
  std::optional<size_t> CallTarget(const onnx::NodeProto& node, const std::string& label) {
    if (auto it = index_.find(FunctionKey(node.domain(), node.op_type())); it != index_.end()) {
      return it->second;
    }
    if (!domains_.count(node.domain())) return std::nullopt;
    const int any_version = std::numeric_limits<int>::max() / 2;
    if (SchemaRegistry::Instance().GetSchema(node.op_type(), any_version, node.domain()) !=
        nullptr) {
      return std::nullopt;
    }
    std::vector<std::string> defined;
    for (const std::string& name : names_) {
      if (name.rfind(node.domain().empty() ? "" : node.domain() + ".", 0) == 0) {
        defined.push_back(name);
      }
    }
    context_.Fail(ErrorKind::kModel,
                  fmt::format("{} calls function '{}', which the model does not define (its "
                              "functions in domain '{}': {})",
                              label, FunctionName(node.domain(), node.op_type()), node.domain(),
                              fmt::join(defined, ", ")));
  }

  // Functions left out of the callees-first order all sit on or above a cycle, and each has a
  // callee left out too; following those from the first one (model order) must come back to a
  // function already on the walk, which closes a cycle. Iterative: no stack for long chains.
  void CheckAcyclic(const std::vector<size_t>& order) const {
    if (order.size() == names_.size()) return;
    std::vector<bool> ordered(names_.size(), false);
    for (size_t f : order) ordered[f] = true;
    size_t f = 0;
    while (ordered[f]) ++f;
    std::vector<size_t> walk;
    std::vector<size_t> position(names_.size(), names_.size());
    while (position[f] == names_.size()) {
      position[f] = walk.size();
      walk.push_back(f);
      f = *std::find_if(callees_[f].begin(), callees_[f].end(),
                        [&](size_t callee) { return !ordered[callee]; });
    }
    std::vector<std::string> cycle;
    for (size_t k = position[f]; k < walk.size(); ++k) cycle.push_back(names_[walk[k]]);
    cycle.push_back(names_[f]);
    context_.Fail(
        ErrorKind::kModel,
        cycle.size() == 2
            ? fmt::format("model-local function '{}' calls itself; recursion has no finite "
                          "expansion",
                          names_[f])
            : fmt::format("model-local functions call each other in a cycle: {}; recursion has "
                          "no finite expansion",
                          fmt::join(cycle, " -> ")));
  }

  // Longest call chain from each function (the graph is acyclic by now), in callees-first
  // order so a long chain costs no stack.
  void CheckDepth(const std::vector<size_t>& order) const {
    std::vector<int> depth(names_.size(), 0);  // functions on the longest chain from here
    std::vector<size_t> next(names_.size(), names_.size());
    for (size_t f : order) {
      depth[f] = 1;
      for (size_t callee : callees_[f]) {
        if (depth[callee] + 1 > depth[f]) {
          depth[f] = depth[callee] + 1;
          next[f] = callee;
        }
      }
      if (depth[f] <= kMaxFunctionCallDepth) continue;
      std::vector<std::string> chain;
      for (size_t g = f; g < names_.size() && chain.size() < kChainNamesShown; g = next[g]) {
        chain.push_back(names_[g]);
      }
      context_.Fail(ErrorKind::kModel,
                    fmt::format("model-local function calls nest {} deep ({} -> ...), over "
                                "hyperplan's limit of {}",
                                depth[f], fmt::join(chain, " -> "), kMaxFunctionCallDepth));
    }
  }

  // Callees before callers (Kahn's algorithm on the reversed edges); functions on or above a
  // cycle are left out.
  std::vector<size_t> CalleesFirstOrder() const {
    std::vector<int> pending(names_.size(), 0);  // callees not yet ordered
    std::vector<std::vector<size_t>> callers(names_.size());
    for (size_t f = 0; f < names_.size(); ++f) {
      pending[f] = static_cast<int>(callees_[f].size());
      for (size_t callee : callees_[f]) callers[callee].push_back(f);
    }
    std::vector<size_t> order;
    for (size_t f = 0; f < names_.size(); ++f) {
      if (pending[f] == 0) order.push_back(f);
    }
    for (size_t i = 0; i < order.size(); ++i) {
      for (size_t caller : callers[order[i]]) {
        if (--pending[caller] == 0) order.push_back(caller);
      }
    }
    return order;
  }

  const onnx::ModelProto& model_;
  const ImportContext& context_;
  std::vector<std::string> names_;  // "domain.name", in model order
  std::unordered_map<std::string, size_t> index_;
  std::unordered_set<std::string> domains_;
  std::vector<std::vector<size_t>> callees_;  // distinct local functions each one calls
};

}  // namespace

void CheckModelStructure(const onnx::ModelProto& model, const ImportContext& context) {
  CheckBodyNesting(model.graph().node(), "", 0, context);
  for (const onnx::FunctionProto& function : model.functions()) {
    CheckBodyNesting(function.node(),
                     "function '" + FunctionName(function.domain(), function.name()) + "': ", 0,
                     context);
  }
  FunctionCalls(model, context).Check();
}

}  // namespace hyperplan::onnx_import
