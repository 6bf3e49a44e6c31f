// Problem: what the planner and every contender derive from (model, profile, loop) before
// deciding, built once by the top-level driver (PlanBest) and handed to PlanOffload and to
// the contenders (ContenderContext extends it).
//
// The graph planned (the model, or for a periodic plan its loop graph with the values that
// persist across iterations: loop.h), its model order, the model's node times (before the
// loop rewrite), lifetimes in that order, the routes between the device and every tier, and
// each value's home (homes.h). Cost: O(nodes + values + uses) plus the loop rewrite.
// Limits: the model and profile must outlive it (it keeps pointers); copies share the loop
// graph.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/homes.h"
#include "hyperplan/lifetimes.h"
#include "hyperplan/loop.h"
#include "hyperplan/planner/options.h"
#include "hyperplan/routes.h"

namespace hyperplan {

struct Problem {
  // The graph planned: the model, or for a periodic plan its loop graph (`loop_graph`).
  const Graph* graph = nullptr;
  const Graph* model = nullptr;  // the model as imported (what VerifyPlan takes)
  std::shared_ptr<const Graph> loop_graph;
  bool periodic = false;
  std::vector<ValueAlias> aliases;
  std::vector<uint8_t> persistent;  // by ValueId; empty for a one-shot plan
  const HardwareProfile* profile = nullptr;
  std::vector<NodeId> order;          // the model order of `graph`
  std::vector<int64_t> node_time_ns;  // by NodeId: the model's own, given or estimated
  LifetimeAnalysis lifetimes;         // in `order`; the device's view under `units`
  DeviceRoutes routes;
  ValueHomes homes;
  // Which unit runs each node (docs/design.md "Compute units"); empty node_unit: the device.
  UnitPlacement units;
  // Whether the planner keeps the crossings' link time free of its own transfers (refine.cc
  // ReserveCrossings); the host placement search asks for it on interleaved placements.
  bool reserve_crossings = false;
  // Whether a crossing Detach (of a device value a host step reads last) waits for that host
  // step as well as for its Store (planner/assemble.cc AddHostReadWaits). The host reads its
  // own copy, so only the Store must end first; not waiting lets the device run on beside the
  // host, but changes when the device's Prefetches queue on the link, so PlanOffload plans the
  // chosen placement once more without the wait and keeps the faster plan.
  bool detach_waits_for_host = true;

  Step step_count() const { return static_cast<Step>(order.size()); }
};

// Throws Error(kProfile) without a device tier, Error(kUsage) for a negative budget or
// overhead.
void CheckPlanInputs(const HardwareProfile& profile, const PlanOptions& options);

// Throws Error(kProfile) without a device tier. `node_time_ns`: one entry per node, checked
// by the caller.
Problem BuildProblem(const Graph& model, const HardwareProfile& profile,
                     std::vector<int64_t> node_time_ns, const LoopSpec& loop);

// The problem PlanOffload solves for `options`: its loop (single_run, aliases) and node times
// (options.node_time_ns, else the roofline model). Throws Error(kProfile) without a device
// tier, Error(kUsage) for a negative budget or overhead or node times that are not one
// non-negative entry per node.
Problem BuildProblem(const Graph& model, const HardwareProfile& profile,
                     const PlanOptions& options);

// `base` with `node_unit` (by NodeId) as its placement: host nodes take their host roofline
// time (host_cost.h), read their weights' home copies on the host tier where those are homed
// there and not written in place on the device (a host node's in-place update writes that home
// copy), and the lifetimes become the device's view (lifetimes.h).
// Throws Error(kInternal) when a host node is given but the profile has no host unit.
Problem PlaceUnits(const Problem& base, std::vector<ComputeUnit> node_unit);

}  // namespace hyperplan
