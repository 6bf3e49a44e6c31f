// Experts placed one by one (issue 31): a plan's Prefetches of stacked [E, ...] expert operands
// of com.microsoft MoE/QMoE nodes, and of the tables the gather form's expert Gathers pick from
// (routed_fetch.h), turned into fetches after route (routed Prefetches: only the experts the
// router picks move), and the hottest experts kept resident on the device in the room the
// budget leaves.
//
// For each device MoE node N and each stacked operand V of N (read by N alone) whose block
// covering N is opened by a Prefetch in the iteration (a streamed operand: "whole Prefetch"),
// the Prefetch becomes routed: issued no earlier than right after the router (the producer of
// N's routing input), waiting for it, moving the expected routed bytes and reserving the worst
// case. Whole-resident operands (no Prefetch) and host-placed MoE nodes keep their placement:
// the planner chose them (whole resident, whole Prefetch, host compute) and this pass adds the
// fourth choice for the streamed ones. Then, while the live peak leaves room under the budget,
// experts are made resident by how likely an iteration touches them (routing.h: 1 - (1 - p_e)^T,
// from the `--expert-stats` profile, else uniform): a resident expert saves that share of its
// slice's link bytes per byte of device memory, so the likeliest go first (ties: node order,
// value, expert index), weighted by the link time a byte of the operand crosses (an expert
// staged from NVMe saves both hops). Before the experts, the room goes to weights the plan
// streams whole every iteration (held_weights.h: all their bytes saved per byte held, where
// an expert saves the chance a token touches it). The plan with routed fetches (and with resident
// experts, where their room is laid out under the budget) is kept when it replays faster or fits
// where the given one did not. Each candidate is laid out and evaluated like every plan;
// PlanOffload verifies the plan it returns, this one among them.
// Cost: one to four FinishPlan passes over the plan, plus O(MoE operands * E *
// log) for the choice. Limits: two hops at most (an operand staged once, NVMe -> DDR -> device,
// has both hops routed, the staging copy reserving the worst case too); the planner's placement
// is decided on whole operands before this pass, so the room routed blocks free goes back only
// through the weights held whole here, not to the refine.
#pragma once

#include <cstdint>
#include <vector>

#include "hyperplan/plan/plan.h"
#include "hyperplan/planner/options.h"
#include "hyperplan/planner/planner.h"
#include "hyperplan/planner/problem.h"
#include "hyperplan/routed_fetch.h"

namespace hyperplan::planner {

// A streamed expert operand: the Prefetch that brings it whole for its device MoE node, and
// its block (ending at the node).
struct StreamedOperand {
  RoutedOperand operand;
  int32_t prefetch = -1;  // index into Plan::steps
  size_t block = 0;       // index into Plan::residency
  Step boundary = 0;      // where its routed Prefetch is issued: right after the router at best
  std::vector<int32_t> waits_for;  // the Prefetch's, the router's and the boundary's compute
  // The hop before it, when the Prefetch reads a staging copy another Prefetch wrote (an
  // NVMe-homed operand staged in DDR): routed too, into a staging copy of the same
  // reservation. -1: none.
  int32_t staging_prefetch = -1;
  int32_t staging_copy = -1;               // index into Plan::tier_copies
  std::vector<int32_t> staging_waits_for;  // its own and the router's
};

// `plan`'s streamed expert operands, in residency order.
std::vector<StreamedOperand> FindStreamedOperands(const Graph& graph, const Plan& plan);

// Whether PlaceExpertsAfterRoute (below) rewrites `plan`'s transfers under `options`: it streams
// a stacked expert operand whole, and routed fetches are allowed. Then the timeline `plan` runs
// on is not the one the returned plan runs on (DeepSeek-V3 int4 on h100-sxm: a 15 s iteration
// of whole expert Prefetches from NVMe becomes 0.6 s routed). O(plan).
bool RewrittenAfterRoute(const Graph& graph, const PlanOptions& options, const Plan& plan);

// `plan` with every streamed operand fetched after route, `resident[i]` (ascending) of
// streamed[i]'s experts held on the device the whole iteration; each routed Prefetch moves
// `fetched_bytes[i]` (empty: ExpectedRoutedBytes) and reserves the worst case. Not laid out.
Plan FetchAfterRoute(const Plan& plan, const std::vector<StreamedOperand>& streamed,
                     const std::vector<std::vector<int32_t>>& resident,
                     const std::vector<int64_t>& fetched_bytes = {});

// The bytes a part's weights (`weight_bytes`, read by `nodes`) move per iteration when it
// streams to the device: its MoE nodes' stacked expert operands fetched after route (their
// expected routed bytes, none resident), the rest whole.
int64_t StreamedPartBytes(const Graph& graph, const std::vector<NodeId>& nodes,
                          int64_t weight_bytes);

// The link time one byte of `entry`'s expert slices takes to reach the device in `plan`, in
// ns: the routed Prefetch's link and, for an operand staged in DDR, the staging hop's too, each
// at its link's whole bandwidth (a routed hop holds every channel, hyperplan/plan/whole_link.h).
// An NVMe-homed expert held on the device saves both hops of every fetch, a DDR-homed one only
// the last (DeepSeek-V3 int4 on h100-sxm: 1/7 + 1/35 ns against 1/35 ns a byte).
double RoutedNsPerByte(const HardwareProfile& profile, const Plan& plan,
                       const StreamedOperand& entry);

// Experts made resident within `room_bytes`, those whose residency saves the most expected link
// time per byte of device memory first: how likely an iteration touches the expert (routing.h)
// times its operand's RoutedNsPerByte (`ns_per_byte`, by streamed operand); ties: operand, then
// expert index. With one route for every operand that is likeliest touched first. By streamed
// operand, ascending; at most E - 1 per operand (all E resident is the planner's whole-resident
// choice).
std::vector<std::vector<int32_t>> ChooseResident(const std::vector<StreamedOperand>& streamed,
                                                 const std::vector<double>& ns_per_byte,
                                                 int64_t room_bytes);

// `planned` (a plan of `problem`) or the same plan with its streamed expert operands
// fetched after route and hot experts resident, whichever replays faster (see above).
PlanResult PlaceExpertsAfterRoute(const Problem& problem, const PlanOptions& options,
                                  PlanResult planned);

}  // namespace hyperplan::planner
