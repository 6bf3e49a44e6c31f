// Weight decode chains: nodes that only widen stored weights for a MatMul, as a graph spells a
// quantized weight out in standard ops (fp8 codes Cast and scaled by block, the gather form's
// int4 / MXFP4 nibbles looked up in a table) and as a fused kernel does in registers. A value
// is decoded weight when it derives from initializers only (a Gather's indices may be any
// value: the experts a router picked) and every consumer either reads it as a MatMul's B or is
// itself such a node. Its producer is costed as fused into the MatMul: it reads the stored
// bytes it starts from (a stacked expert table's distinct experts, a lookup table whole), writes
// nothing, and the MatMul does not read the widened B again.
// Cost: O(chain length x fan-out) per query, chains of a dozen nodes. Limits: the widened
// values still take memory in the plan (a fused kernel would not materialize them); the nodes
// still count as kernel launches; the embedding's Gather (read by a norm) and any value an
// activation also feeds are never decoded weight. Internal to src/core.
#pragma once

#include "hyperplan/graph.h"

namespace hyperplan::cost_rules {

// Whether `value` is a decoded weight (see above); initializers themselves are not.
bool IsDecodedWeight(const Graph& graph, ValueId value);

// Whether `node` produces a decoded weight (and so is costed as fused into its MatMul).
bool IsWeightDecodeNode(const Graph& graph, const Node& node);

}  // namespace hyperplan::cost_rules
