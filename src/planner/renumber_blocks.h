// After a pass rebuilds a plan's steps in a new sequence: the residency blocks' and tier
// copies' step indices renumbered the same way. Cost: O(blocks + copies).
#pragma once

#include "hyperplan/plan/plan.h"

namespace hyperplan::planner {

// Applies `renumber` (int32_t& -> void: an old step index to its new one) to every step index
// a residency block or tier copy names.
template <typename Renumber>
void RenumberBlockSteps(Plan& plan, Renumber&& renumber) {
  for (ResidentInterval& block : plan.residency) {
    renumber(block.opened_by);
    renumber(block.closed_by);
  }
  for (TierCopy& copy : plan.tier_copies) {
    renumber(copy.opened_by);
    renumber(copy.closed_by);
  }
}

}  // namespace hyperplan::planner
