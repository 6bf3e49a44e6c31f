// EmbeddingReadersOfUpdate: the nodes a layer's optimizer update (the kOptimizer host part,
// host_parts.h) takes with it so that a token embedding it updates never crosses the link whole
// (issue 30).
//
// With the optimizer on the host (ZeRO-Offload's placement) the embedding's 1.05 GB table
// (Llama-3-8B) is updated last in the iteration and read first: the device fetched it whole
// for its one Gather (45 ms at 25 GB/s before any Store of the forward pass could start), and
// the backward pass's ScatterND made its 1.05 GB gradient on the device, which crossed back
// after the device's last step (42 ms) before the host's Adam on it (139 ms). The host holds the
// table's home copy and updates it in place, so the part that updates it can also read it:
// - the Gather of a weight the update writes in place, when every other reader of that weight
//   is in the update (the device then never reads the table; only the 33 MB rows cross), and
// - the producer of a gradient the update reads, when the values it reads from computing nodes
//   hold fewer bytes than the gradient (a scatter of the rows' 33 MB gradient into the table's
//   shape), with the nodes before it that read only constants and graph inputs and feed only it
//   (the zeros it scatters into, the indices' reshape): the link carries the smaller inputs.
// Both run on the unit that updates the table, so the weight's home copy stays the one copy the
// host writes and reads (a Gather on the host beside an update on the device would read a stale
// table). The Gather reads the table before the update writes it (the update's read_after rule
// in host_parts.cc is unchanged).
// Asked for by HostPartOptions::embedding_readers, which only the every-update placement
// (planner.cc WithEveryUpdateOnHost) and its bound set: in the placement search's parts it hid
// the winner on a100-pcie4 (2.74 -> 3.43 s).
// Cost: O(nodes of the update + uses of their inputs). Limits: only a Gather (the embedding's
// lookup) among readers; a gradient made by a MatMul over activations as large as it (lm_head,
// the layers' weights) stays where it is.
#pragma once

#include <optional>
#include <set>
#include <vector>

#include "hyperplan/planner/problem.h"

namespace hyperplan::planner {

// The nodes, none of them in `update`, that the update of the persistent values `state` (its
// nodes `update`; `updates` by NodeId, optimizer_nodes.h) takes along: the Gathers of a table it
// updates and the scatters making that table's gradient, as above; empty when there is no such
// Gather. Sorted by NodeId.
std::vector<NodeId> EmbeddingReadersOfUpdate(const Problem& problem,
                                             const std::vector<std::optional<int>>& updates,
                                             const std::vector<NodeId>& update,
                                             const std::set<ValueId>& state);

}  // namespace hyperplan::planner
