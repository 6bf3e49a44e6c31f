// Test support: a refine's Selection as text, every field it holds (placements with their hops'
// links, channels, slots and boundaries, tier reservations, decisions and reasons), so that two
// selections are the same iff their dumps are: the equivalence tests of the refine's shortcuts
// (placement_cache_test.cc, refine_checkpoint_test.cc) compare them.
#pragma once

#include <sstream>
#include <string>

#include "planner/refine.h"

namespace hyperplan::planner_test {

inline std::string DumpSelection(const planner::Selection& selection) {
  std::ostringstream out;
  out << selection.live_peak_bytes << " " << selection.peak_step << " " << selection.stuck_step
      << " " << selection.reached_target << " " << selection.predicted_stall_ns << "\n";
  for (const planner::Placement& p : selection.placements) {
    out << p.candidate << " " << p.detach_boundary << " " << p.freed_first << " " << p.freed_last
        << " " << p.detach_start_ns << " " << p.stall_ns << " |";
    for (const auto* hops : {&p.store_hops, &p.prefetch_hops}) {
      for (const planner::HopPlacement& hop : *hops) {
        out << " " << hop.link << ":" << hop.slot.channel << ":" << hop.slot.start_ns << "-"
            << hop.slot.end_ns << "@" << hop.boundary;
      }
      out << " |";
    }
    for (const planner::TierReservation& r : p.tier_reservations) {
      out << " " << r.tier << ":" << r.first << "-" << r.last << ":" << r.bytes;
    }
    out << "\n";
  }
  for (size_t end : selection.decision_ends) out << end << ",";
  out << "\n";
  for (size_t c = 0; c < selection.reason.size(); ++c) {
    out << static_cast<int>(selection.reason[c]) << " " << selection.detail[c] << "\n";
  }
  return out.str();
}

}  // namespace hyperplan::planner_test
