// Control flow: If, Loop and Scan as one planning step each, their bodies summarised.
//
// Each body is imported as a Graph of its own (graph_building.h); this module condenses it into
// the numbers a Node carries. Peak: the body's no-offload peak from AnalyzeLifetimes, with the
// values it captures from enclosing graphs counted as zero bytes, because the enclosing graph
// already holds them as the node's inputs. Work: NodeFlops summed over the body's nodes, and
// bytes accessed as every body node's inputs plus outputs (plus nested bodies' accesses). If
// takes the larger branch for each number. Loop and Scan multiply work, not peak, by a trip
// count the model fixes: a constant M input for Loop, the scanned axis length for Scan; without
// one they count a single iteration and warn. Other operators with graph attributes count each
// body once, with a warning. Cost: one lifetime analysis per body, linear in its size.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "hyperplan/graph.h"
#include "onnx/graph_scope.h"
#include "onnx/import_context.h"

namespace hyperplan::onnx_import {

struct BodySummary {
  int64_t peak_bytes = 0;
  int64_t flops = 0;
  int64_t bytes_accessed = 0;
};

// `captured` lists the body's values that stand for values of an enclosing graph.
BodySummary SummariseBody(const Graph& body, const std::vector<ValueId>& captured);

// Sets node.subgraph_* (and int_attributes["trip_count"] when known) from its bodies.
void ApplyBodySummaries(const GraphScope& scope, const ScopeNode& scope_node,
                        const std::vector<BodySummary>& bodies, Node& node, ImportContext& context);

}  // namespace hyperplan::onnx_import
