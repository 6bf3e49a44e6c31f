// Graph building: a resolved, typed scope becomes a hyperplan Graph.
//
// Values are numbered graph inputs first (model order), then initializers, then node outputs in
// execution order, then values captured from enclosing graphs; nodes follow the topological
// order, so the Graph's own order is a valid execution order. Every value is sized
// (tensor_sizing.h). A size left unknown is listed in Graph::warnings; one that depends on a
// declared symbol no --dim bound is collected instead, so the importer can fail naming that
// symbol. Every int attribute of a node is copied to Node::int_attributes, with the defaults the
// cost model relies on filled in (MatMulNBits bits, GatherBlockQuantized bits/block_size/axes,
// Gemm transA/transB, Conv group, attention head counts, and a fused attention node's
// "input_positions" bitmask where it omits an input before a later one). Each value of unknown size
// that could change a plan is recorded (unknown_sizes.h) for the importer's refusal. Control-flow
// bodies are built recursively and summarised (control_flow.h). Cost: linear in values and edges.
#pragma once

#include <cstdint>
#include <memory_resource>
#include <string>
#include <unordered_map>
#include <vector>

#include "hyperplan/graph.h"
#include "onnx/dim_binding.h"
#include "onnx/graph_scope.h"
#include "onnx/import_context.h"
#include "onnx/unknown_sizes.h"

namespace hyperplan::onnx_import {

struct BuiltGraph {
  Graph graph;
  std::vector<ValueId> captured;  // values standing for values of enclosing graphs
};

class GraphBuilder {
 public:
  GraphBuilder(ImportContext& context, DimBinding& binding);

  // Builds `scope` and, recursively, its bodies.
  BuiltGraph Build(GraphScope& scope);

  // Every unbound declared symbol that some value's size depends on, in discovery order, with
  // the values (first few) whose size it decides.
  std::vector<UnboundDim> UnboundDims() const;

  // Adds a summary warning for unknown-size values beyond those listed one by one.
  void Finish();

  // The values of unknown size that could change a plan (unknown_sizes.h); those that depend
  // on an unbound symbol are in UnboundDims() instead.
  const UnknownSizes& unknown_sizes() const { return unknown_sizes_found_; }

 private:
  void SizeValue(const GraphScope& scope, const Slot& slot, Value& value);
  void RecordUnknownSize(const GraphScope& scope, const Slot& slot, const Value& value,
                         const std::string& reason);
  void AddValues(const GraphScope& scope, BuiltGraph& built, std::pmr::vector<ValueId>& value_of);
  void FillIntAttributes(const onnx::NodeProto& proto, const Graph& graph, Node& node) const;

  ImportContext& context_;
  DimBinding& binding_;
  std::vector<UnboundDim> unbound_;  // in order of discovery
  std::unordered_map<std::string, size_t> unbound_index_;
  int64_t unknown_sizes_ = 0;
  UnknownSizes unknown_sizes_found_;
};

}  // namespace hyperplan::onnx_import
