// RoutedView: a plan's routed Prefetches (fetch after route, issue 31; docs/design.md "Fetch
// after route") as the reference executor runs them, found once from the plan and its view.
//
// Per iteration the executor draws each MoE node's routing with the simulator's sampler
// (routing_samples.h SampleTouchedExperts, routing number iteration - 1 under the run's seed, so
// iteration i meets `plan --routing-samples`' routing i - 1). A routed hop then reads the
// router's output (the routing) and copies, in ascending expert order, each touched expert
// that no partial residency holds: the slice [e * slice, (e + 1) * slice) of the value, from
// its place in the source block (a whole copy: at e * slice; a routed staging copy: at its rank)
// to its rank in the block the hop opens. The MoE node then reads each touched expert's slice
// where it lies: a partial residency's rank (ResidentInterval::experts) or the routed block's.
// A routing that needs more slices than the block reserves is refused.
// Cost: O(steps + blocks) to build; O(E) per hop per iteration. Limits: one routing input per
// MoE node; a value's partial residencies are all read as one set of resident experts.
#pragma once

#include <cstdint>
#include <vector>

#include "executor/plan_view.h"
#include "hyperplan/graph.h"
#include "hyperplan/plan/plan.h"
#include "hyperplan/routing_samples.h"

namespace hyperplan::executor {

// One routed Prefetch (a hop: NVMe -> DDR into a staging copy, or on to the device).
struct RoutedHop {
  int32_t step = -1;
  NodeId node = kNoNode;  // the MoE node whose routing picks the experts
  ValueId value = kNoValue;
  int64_t slice_bytes = 0;  // one expert's bytes
  MoeRouting routing;
  std::vector<char> resident;            // by expert: held by a partial residency
  std::vector<int32_t> resident_blocks;  // the value's partial residencies (device blocks)
  ValueId router_value = kNoValue;       // the node's routing input
  int32_t router_block = -1;             // its block this hop reads; -1: none found
};

struct RoutedView {
  std::vector<RoutedHop> hops;
  std::vector<int32_t> hop_of_step;    // by step: index into hops, -1 for an ordinary step
  std::vector<int32_t> hop_of_block;   // by block: the hop that opens it, -1 for others
  std::vector<int32_t> experts_block;  // by block: the hop whose value it partially holds, -1
  // MoE nodes with a routed hop, ascending, each with a routing to draw per iteration.
  std::vector<MoeRouting> routings;
};

RoutedView BuildRoutedView(const Graph& loop, const Plan& plan, const PlanView& view);

// The touched experts `hop` copies: touched (by expert, 1) and not resident, ascending.
std::vector<int32_t> FetchedExperts(const RoutedHop& hop, const std::vector<char>& touched);

// Where expert `e` lies in `block`: its byte offset within the block; -1 when the block does
// not hold it (a partial residency without it, or a routed block that did not fetch it).
// A block that holds the whole value has it at e * slice_bytes.
int64_t SliceOffsetIn(const RoutedView& routed, const Plan& plan, int32_t block, int32_t e,
                      int64_t slice_bytes, const std::vector<int32_t>& fetched);

}  // namespace hyperplan::executor
