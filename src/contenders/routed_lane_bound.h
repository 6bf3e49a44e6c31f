// Fetch after route on the chain (issue 31): the host-aware bound's condition (host_lower_bound.h)
// that an expert fetched after its router crosses while the chain waits.
//
// A plan must hold for every routing, so a byte of a stacked expert operand of a device MoE
// node N (a com.microsoft MoE/QMoE node, or an expert Gather of the gather form: below) is,
// through the steps from its router R to N, either resident throughout
// (brought before R: "dense", whatever the routing) or not, and then, when the tokens touch its
// expert, it crosses into the device after R has run (the plan format starts a device hop only
// once the compute stream reaches its boundary) and before N starts. Let a_l be the bytes of
// layer l's operands not resident throughout [R, N] and t the least chance an iteration
// touches one of the node's experts (routing.h: 1 - (1 - p_e)^T); they move at least t a_l
// bytes in expectation, as the routed Prefetch's expected bytes count them.
// - Link: at the device-only bound's step s (lower_bounds.h), N(x) >= M_t - F(x) bytes of
//   U(s) are off the device for a placement x (host_lower_bound.h). A byte of them crosses
//   once at least, and only a byte crossing after its router may cost as little as t of one; a
//   byte resident at s but not throughout its [R, N] costs t too, which only adds. So the link
//   carries at least M_t - F(x) - (1 - t) A with A = sum a_l: T >= that over r_t, for every
//   device-only term (M_t, r_t) (a staging hop routed too costs t per byte, one staged
//   whole costs more).
// - Chain: layer l's block is one link of the chain (host_lower_bound.h), whose span holds R,
//   then the fetch, then N: so t a_l over the device's summed in-rate r_in adds to L(x), less
//   what may run beside the fetch (never below 0): the block's nodes N depends on and R does not
//   (R's descendants before N, and any beside R), counted at the larger of their device and host
//   times.
// So with every per-layer option, the LP relaxation is a multiple-choice fractional knapsack:
// per layer, its parts as before (x_p on the host: frees f_p at lane cost c_p = h_p - d_p)
// and, for the routed-experts part e of a MoE layer, after route (frees (1 - t) W_e of the
// link terms' bytes at lane cost max(0, t W_e / r_in - overlap), W_e its stacked bytes), with x_e +
// y_e <= 1 (a layer's experts run on one unit; after route only on the device). The least lane time
// that frees G link bytes is convex in G: per layer the options' lower hull ((0, 0), after route,
// host), its segments sorted by lane ns per byte across layers. T is feasible when the lane
// that frees max_t (M_t - T r_t) is within T. A plan meets it with its own x and y, so it is
// a necessary condition, checked beside the others (host_lower_bound.h Feasible).
// The gather form (core/expert_gather.h): a layer's routed-experts part holds several expert
// Gathers of one router (gate, up, down tables, their scales or biases), each table crossing
// after R and before its own Gather; all of them cross before the last Gather to start,
// whichever it is, so the layer's fetch t a_l (a_l: the Gathers' tables not resident) is one
// more stretch of its link as a MoE node's is. What may run beside it differs: a Gather of down
// weights reads only the router's indices, so the gate and up MatMuls (no ancestors of it) may
// run while it lands: the overlap is every node of the block the chain counts that is neither
// R nor an ancestor of R (ended before the fetch starts) nor a descendant of every Gather
// (starts after the last one starts), the experts' at their device time (after route they run
// there), the rest's at the larger of their two times. A Gather's bytes, like a MoE node's,
// cross once after R at t of one at least, or whole before it (the link terms), or stay
// resident, or go with their part to the host; whole parts, resident hot experts (t is the
// least over a node's experts) and the planner's fetch after route (the route pass, routed_fetch.h)
// are all such plans, and the contenders' (whole tensors, experts on the host by layer) too.
// Sound only when every node with a stacked operand (a MoE node or an expert Gather) belongs to
// a routed-experts part whose routed nodes are its one MoE node or Gathers of one router on the
// chain (else a node could be fetched after route at no lane cost): otherwise the condition is
// off (a Gather outside such a part). The overlap counts only after route: a layer fetched
// after route adds max(0, t a_l / r_in - overlap) to L (the span holds the larger of the fetch
// and the nodes beside it, which L counts once), resident or on the host none; after route and
// on the host both relax fractionally.
// Cost: O(parts log parts) per bound, plus walks between each router and its MoE node (the gather
// form: one forward walk from each Gather over its block). Limits: latency ignored; t is the least
// over a node's experts (hot experts kept resident cost more); expectations over routings (as the
// node times and routed Prefetches are).
#pragma once

#include <cstdint>
#include <vector>

#include "contenders/context.h"
#include "contenders/host_lower_bound.h"
#include "contenders/lane_options.h"
#include "hyperplan/planner/host_parts.h"

namespace hyperplan::contenders {

// Sets each routed-experts part's fetch-after-route option (routed_bytes, touch, overlap_ns)
// and inputs.routed_lane (whether the condition is sound here, above); `parts` in the order of
// inputs.parts.
void AddRoutedFetchOptions(const Problem& problem, const std::vector<HostPart>& parts,
                           HostBoundInputs& inputs);

// The condition's knapsack: the lane with every free option taken, the rest as hull segments
// sorted by lane ns per byte freed.
struct RoutedLaneRelaxation {
  bool active = false;  // inputs.routed_lane and a chain
  long double base_ns = 0;
  long double base_freed = 0;
  long double base_host_parts = 0;
  std::vector<LaneOption> segments;  // host_parts 0: a layer fetched after route
  long double most_freed = 0;
};
// `host_part_ns`: each part of class `split_class` (-1: every part) on the host costs that much
// more lane time (a multiplier on their count, which base_host_parts and the segments count
// alone: whole_parts.h).
RoutedLaneRelaxation RelaxRoutedLane(const HostBoundInputs& inputs, long double host_part_ns = 0,
                                     int split_class = -1);

// The least lane time of the relaxation that keeps every device-only transfer term within
// `t_ns` (+infinity where no placement frees the bytes); the fill it takes.
long double RoutedLaneNs(const HostBoundInputs& inputs, const RoutedLaneRelaxation& relaxed,
                         int64_t t_ns, LaneFill* fill = nullptr);

// Whether some fractional placement with after-route options keeps the lane and every
// device-only transfer term (inputs.whole_transfers) within `t_ns` (true when not active);
// the placement's parts on the host and link bytes freed to `host_parts` and `freed` if given.
bool RoutedLaneFits(const HostBoundInputs& inputs, const RoutedLaneRelaxation& relaxed,
                    int64_t t_ns, long double* host_parts = nullptr,
                    long double* freed_bytes = nullptr);

}  // namespace hyperplan::contenders
