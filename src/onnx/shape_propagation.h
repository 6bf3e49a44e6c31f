// Shape propagation: the type and shape of every slot of a resolved scope, from the model's
// declarations and ONNX's per-operator shape inference.
//
// Runs the same per-operator inference and data-propagation functions that
// onnx::shape_inference::InferShapes runs (looked up through SchemaRegistry, so contrib and
// post-1.12 operators are covered; data propagation on; errors non-fatal), but drives them over
// the scope's dense slots in topological order instead of calling InferShapes. Measured on a
// 96k-node model, InferShapes took about twice the protobuf parse time by itself: it rebuilds
// string-keyed maps per node and writes value_info back. Here a node's context is a few vector
// lookups, results stay in the arena, and a node whose outputs the model already declares in
// full is not re-inferred (data-propagating and control-flow nodes always run). Per-node
// isolation is a bonus: where InferShapes aborts the whole graph on one stale annotation, a
// failing node here keeps its declared types and adds a warning. Contents also flow through
// the operators ONNX 1.12 does not propagate, or propagates only in 1-D (data_rules.h: Range,
// ScatterND, Div, Mod, Where, Expand, ConstantOfShape, Reshape, Transpose, Slice, ...), and
// contents known in full are handed to shape rules as constants, since ONNX 1.12's rules for
// Pad, Slice, Unsqueeze, ConstantOfShape and Range read their size inputs only from a
// constant: a Swin window's padding computed from Shape then sizes the Pad. An inferred size
// always wins over a symbol the model declared for it (a note at -v says so): exporters name
// sizes they could not work out (torch's `Gemmlogits_dim_0`), and such a name is not a
// dimension a user should have to bind.
// Control-flow bodies are inferred by ONNX's GraphInferencer when their node is (annotating the
// body graphs), then propagated here, parent first. Cost: O(nodes) inference calls. Limits:
// complete declarations are trusted as runtimes that load the model trust them; ONNX's body
// inference copies the enclosing scope's type table once per body, so a graph with thousands
// of control-flow nodes pays that many copies.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "onnx/graph_scope.h"
#include "onnx/import_context.h"

namespace onnx {
class OpSchema;
}

namespace hyperplan::onnx_import {

class ShapePropagator {
 public:
  explicit ShapePropagator(ImportContext& context);

  // Types `scope`'s slots, then its bodies' (recursively). Captured slots take the types of
  // the enclosing scope's slots, so the enclosing scope must have been propagated first.
  void Propagate(GraphScope& scope);

  // Adds the summary warnings (operators without shape rules, repeated failures).
  void Finish();

  // "domain.op" ("Op" for ai.onnx) -> nodes of that operator with no shape rule.
  const std::map<std::string, int64_t>& NodesWithoutRule() const { return nodes_without_rule_; }

 private:
  const onnx::OpSchema* SchemaFor(const onnx::NodeProto& node);
  void DeclareTypes(GraphScope& scope);
  void InferNode(GraphScope& scope, ScopeNode& node,
                 std::unordered_map<std::string, onnx::TypeProto*>*& outer_types);
  std::unordered_map<std::string, onnx::TypeProto*>* OuterTypesOf(const GraphScope& scope);
  void StoreInferred(const GraphScope& scope, Slot& slot, onnx::TypeProto* inferred,
                     std::unordered_map<std::string, onnx::TypeProto*>* outer_types);
  void NoteFailure(const std::string& category, std::string message);
  // A note (-v) for each axis the model declares as a symbol and inference finds a size for.
  void NoteInferredSymbols(const GraphScope& scope, const Slot& slot,
                           const onnx::TypeProto& inferred);

  ImportContext& context_;
  std::unordered_map<std::string, int> onnx_opsets_;  // as ONNX's body inference takes them
  // Schema per operator, cached. ai.onnx ones are keyed by views of op_type strings in the
  // model, which outlives the propagator; other domains by "domain\nop".
  std::unordered_map<std::string_view, const onnx::OpSchema*> default_domain_schemas_;
  std::unordered_map<std::string, const onnx::OpSchema*> other_domain_schemas_;
  std::map<std::string, int64_t> nodes_without_rule_;  // "domain.op" -> node count
  std::map<std::string, int64_t> failures_;            // category -> count beyond those shown
  std::map<std::string, int64_t> failures_shown_;
  int64_t symbols_inferred_ = 0;
  std::vector<std::unique_ptr<std::unordered_map<std::string, onnx::TypeProto*>>> outer_maps_;
};

}  // namespace hyperplan::onnx_import
