// LayOutPlan: where every byte of a plan lives: the device arena (residency over the order's
// steps, planner/layout.h) and one buffer per off-device tier (its copies, tier_layout.h),
// each aligned to its tier's alignment_bytes.
// Runs after the plan's steps and waits are final (the tier buffers depend on the waits).
// Cost: a LayoutArena plus, per tier, a LayoutBlocks over its copies; O(steps + waits) more.
#pragma once

#include "hyperplan/hardware.h"
#include "hyperplan/planner/layout.h"
#include "hyperplan/planner/plan.h"

namespace hyperplan {

// Sets plan.layout, plan.tier_buffers and every TierCopy's offset_bytes.
void LayOutPlan(const HardwareProfile& profile, const LayoutOptions& options, Plan& plan);

// Every tier buffer within its tier's capacity (capacity <= 0: unbounded). The device arena
// is not checked here (Plan::fits says whether it fits the budget and the device).
bool TierBuffersFit(const HardwareProfile& profile, const Plan& plan);

}  // namespace hyperplan
