// Idle gaps: the stretches of a run in which a value is not needed on the device, the one
// enumeration the planner's candidates (candidates.h) and the op-distance contender both cut
// their decisions from.
//
// A value is required on the device at its producer's step and at each consumer's step. Its
// gaps lie between those steps: a leading gap before the first required step (it matters only
// for a value owned outside the run), an inner gap between each two, and a trailing gap after
// the last, up to the run's end; a value required nowhere has one gap over the whole run.
// Each caller decides which gaps it keeps and which steps each frees (where its transfers go).
// Cost: O(uses) per value. Limits: gaps are by step, not by time.
#pragma once

#include <cstdint>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/lifetimes.h"

namespace hyperplan {

enum class GapKind : uint8_t { kLeading, kInner, kTrailing, kWholeRun };

struct IdleGap {
  GapKind kind = GapKind::kInner;
  Step after_step = -1;  // the last required step before it; -1: none
  Step before_step = 0;  // the next required step; step_count: none
};

// The steps that need `value` on the device, ascending, each once: its producer's (`lifetime`
// def_step) and its consumers'.
std::vector<Step> RequiredSteps(const Value& value, const Lifetime& lifetime);

// The gaps around `required` (RequiredSteps) in a run of `step_count` steps, in step order:
// leading, inner..., trailing; or one kWholeRun gap (-1, step_count) when `required` is empty.
std::vector<IdleGap> IdleGaps(const std::vector<Step>& required, Step step_count);

}  // namespace hyperplan
