// LayOutPlan: where every byte of a plan lives: the device arena (residency over the order's
// steps, planner/layout.h) and one buffer per off-device tier (its copies, tier_layout.h),
// each aligned to its tier's alignment_bytes.
// Runs after the plan's steps and waits are final (the tier buffers depend on the waits).
// Cost: a LayoutArena plus, per tier, a LayoutBlocks over its copies; O(steps + waits) more.
// NoOffloadArenaBytes: the arena with nothing offloaded, one LayoutArena. LiveBytesPerStep:
// O(steps + intervals).
#pragma once

#include <cstdint>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/layout/layout.h"
#include "hyperplan/lifetimes.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan {

// Sets plan.layout, plan.tier_buffers and every TierCopy's offset_bytes.
void LayOutPlan(const HardwareProfile& profile, const LayoutOptions& options, Plan& plan);

// Every tier buffer within its tier's capacity (capacity <= 0: unbounded). The device arena
// is not checked here (PlanEvaluation::fits says whether it fits the budget and the device).
bool TierBuffersFit(const HardwareProfile& profile, const Plan& plan);

// Per step of [0, step_count): the bytes of `residency`'s intervals live there (an arena is
// never below its maximum). Intervals with no bytes or first_step > last_step count nothing.
std::vector<int64_t> LiveBytesPerStep(const std::vector<ResidentInterval>& residency,
                                      Step step_count);

// The device arena of `order` with nothing offloaded (every value resident from its baseline
// first to its baseline last step, `lifetimes` of `order`, and each node's subgraph scratch
// during its step), laid out as a plan's arena is: what summaries compare a plan's arena
// against. The planner's no-offload plan has exactly this arena.
int64_t NoOffloadArenaBytes(const Graph& graph, const HardwareProfile& profile,
                            const std::vector<NodeId>& order, const LifetimeAnalysis& lifetimes,
                            const LayoutOptions& options = {});

}  // namespace hyperplan
