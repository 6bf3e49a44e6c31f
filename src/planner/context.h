// PlanContext: everything the planner derives from (graph, profile, order) before deciding.
//
// Lifetimes, costs and candidates for one order, plus the baseline device bytes per step
// (the lifetimes timeline: values and control-flow scratch) and, where some nodes run on the
// host, the crossings that placement needs (host_crossings.h: refine counts their copies'
// room, assembly issues them). Built once per order and then read only by refine, assemble
// and the oracle tests. Cost: O(nodes + values + uses) plus the candidate sort.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/layout/layout.h"
#include "hyperplan/lifetimes.h"
#include "hyperplan/planner/problem.h"
#include "planner/candidates.h"
#include "planner/cost_analysis.h"
#include "planner/host_crossings.h"

namespace hyperplan::planner {

struct PlanContext {
  const Graph* graph = nullptr;
  const HardwareProfile* profile = nullptr;
  std::vector<NodeId> order;
  bool reordered = false;
  std::string order_name;             // Plan::order_name: set by whoever made a reordered context
  LifetimeAnalysis lifetimes;         // the device's view under `units`
  UnitPlacement units;                // Problem::units: which nodes run on the host
  HostCrossings crossings;            // of `units` in `lifetimes`; empty: every node on the device
  bool reserve_crossings = false;     // Problem::reserve_crossings: refine.cc ReserveCrossings
  bool detach_waits_for_host = true;  // Problem::detach_waits_for_host
  CostAnalysis cost;
  ValueHomes homes;  // homes.h: the same for every order and time axis
  CandidateSet candidates;
  std::vector<uint8_t> persistent;  // by ValueId; empty: a one-shot plan (loop.h)
  LayoutOptions layout;             // PlanOptions::layout
  CandidateRules rules;             // candidates.h
  // Refine hoists one-hop Prefetches as early as the device has room (refine.h); the
  // planner asks for it in one extra round and keeps that plan only if it wins (retime.h).
  bool hoist_prefetches = false;
  // Refine turns down a gap whose pre-peak Store would make its Detach wait longer on the
  // compute-only axis than on the axis it plans on (pre_peak_stores.h); the planner's last
  // chain plans without that rule where it left a retimed round stuck (planner.cc).
  bool reject_stores_late_on_compute_axis = true;
  // Test-only: false plans every uniform retry of the budget rounds from the start instead of
  // resuming the nearest recorded refine (modes.cc UniformRetries): the oracle the tests hold
  // the resumed retries to (the same plans).
  bool resume_uniform_retries = true;

  Step step_count() const { return static_cast<Step>(order.size()); }
  const std::vector<int64_t>& base_live_bytes() const {
    return lifetimes.timeline.live_bytes_per_step;
  }
};

// `graph` is the loop graph for a periodic plan (loop.h), with `persistent` its persistent
// values; `persistent` empty plans one run.
PlanContext BuildContext(const Graph& graph, const HardwareProfile& profile,
                         std::vector<NodeId> order, const std::vector<int64_t>& node_time_ns,
                         std::vector<uint8_t> persistent);

// The model order's context from the problem bundle (problem.h): its lifetimes, routes and
// homes as built there.
PlanContext BuildContext(const Problem& problem);

// `base` with each persistent value's inner gaps bundled to its wrap-around gap
// (InnerGaps::kWithWrap), the candidates found again.
PlanContext WithInnerGapsBundled(const PlanContext& base);

// Whether some persistent value has an inner gap of its own: otherwise WithInnerGapsBundled
// changes nothing.
bool HasOwnInnerGaps(const PlanContext& context);

// `base` with the values LateWriteBackValues names kept across the boundary
// (LateWriteBacks::kAtStart), the candidates found again.
PlanContext WithLateWriteBacksAtStart(const PlanContext& base);

// The values WithLateWriteBacksAtStart keeps across the boundary (by ValueId, 1: kept; none
// unless InnerGaps::kOwn).
std::vector<uint8_t> LateWriteBackValues(const PlanContext& context);

// `base` with each wrap-around half ranked by its own length (WrapRank::kOwnHalf), the
// candidates found again.
PlanContext WithWrapHalvesRankedAlone(const PlanContext& base);

// `base` with its time axis replaced: step k starts at `step_start_ns[k]` (step_count + 1
// entries, non-decreasing; e.g. a simulated plan's compute starts, stalls included), and the
// candidates found again on that axis. The graph, profile and order are shared.
PlanContext RetimedContext(const PlanContext& base, std::vector<int64_t> step_start_ns);

}  // namespace hyperplan::planner
