// Tier buffers: an offset for every off-device copy (home, stored, staging) in one buffer per
// tier, so that a runtime allocates each tier once (pinned host memory, a file on NVMe).
//
// Each copy occupies a range of positions on the compute-step axis [0, order size]: from the
// first compute step its allocating transfer may overlap (one past the last compute step
// that surely ended before the transfer starts) to the first compute step that surely starts
// after its freeing transfer ends (compute_bounds.h); a home copy (no opening step) from 0, a
// copy nothing frees (or whose free no compute step waits for) to the order's size. If one
// copy's range ends before another's begins, its free precedes the other's allocation in
// every execution the waits allow, not only in the simulated one; so copies laid out apart on
// this axis (by LayoutBlocks, as the device arena) never overlap in a real run.
// Each tier keeps the sweep's layout when it fits the tier's capacity; only a tier it
// overflows gets LayoutBlocks' greedy orders too (a smaller host buffer buys nothing).
// Cost: O((steps + waits) * streams) plus one sweep per tier, and LayoutBlocks for a tier the sweep
// overflows. Limits: conservative: two copies
// whose lifetimes the simulation separates may still need separate space when the waits do
// not order them.
#pragma once

#include <vector>

#include "hyperplan/hardware.h"
#include "hyperplan/layout/layout.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan::planner {

// Per TierCopy (parallel to plan.tier_copies): the positions it occupies, within
// [0, order size]; `bytes` is the copy's.
std::vector<LayoutBlock> TierCopyBlocks(const Plan& plan, const HardwareProfile& profile);

// Sets every copy's offset_bytes and returns one buffer per tier holding a copy, ascending
// tier, each aligned to its tier's alignment_bytes.
std::vector<TierBuffer> LayoutTierBuffers(const HardwareProfile& profile,
                                          const LayoutOptions& options, Plan& plan);

}  // namespace hyperplan::planner
