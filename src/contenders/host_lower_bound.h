// The host-aware lower bound (issue 30): what no plan that runs some layer parts on the host
// (host_parts.h) can beat, at a given device budget and order.
//
// The plan space: placements by parts of one family. The default parts (each layer's MLP and
// attention with its KV cache, each layer's optimizer update, the LM head, the embedding) are
// what the planner (PlaceOnHostWhereFaster) and the contenders llama.cpp -ot and -ngl
// (llama_cpp_ffn.h, llama_cpp_layers.h) and ZeRO-Offload (zero_offload.h) place; the family with
// attention cores instead of attention (HostPartOptions::attention_cores) is FlexGen's
// (flexgen_cpu_attention.h). Within a family the parts are disjoint. A plan runs a subset x of
// one family's eligible parts P on the host and every other node on the device; the bound of a
// family is the least makespan over every such x, and the bound is the lesser of the two
// families' bounds, so it holds for any of those plans (and for the device-only plan, x = 0).
// A part that updates persistent state in place on the host (a KV append, an optimizer step)
// leaves the device's view as other parts do; that the device must then fetch such a value
// afresh every iteration (docs/design.md "Compute units") only adds traffic, which a lower bound
// may leave out.
// For a placement x (x_p = 1: part p on the host), with d_p, h_p part p's time on the device
// and on the host, and f_p the bytes of every value p's nodes read or write plus their scratch:
// - Host lane: the host runs its steps one at a time, so T >= H(x) = sum x_p h_p.
// - Device lane: the nodes in no part always run on the device, so T >= their time.
// - Link: the device-only bound (lower_bounds.h) forces M_t bytes over transfer term t (a link,
//   or the device's links together) at rate r_t: at its step s, the values in U(s) beyond the
//   room B - floor(s). Moving p to the host removes from the device's view only values p's
//   nodes touch: its weights, the activations it reads or writes (at most all of them leave
//   U(s) or, at p's own steps, the floor), and its scratch; every other value keeps its steps,
//   so U(s) and floor(s) shrink by at most sum x_p f_p together. So T >= (M_t - F(x)) / r_t
//   with F(x) = sum x_p f_p (an over-count of f_p only weakens it). A value leaves only when
//   every node touching it runs on the host: never when a node in no part touches it, and for
//   one of k parts at most min x_p <= (1/k) sum x_p of its bytes; so f_p counts each value it
//   touches at 1/k of its bytes (the rotary tables every attention part reads count once in
//   all, not once per layer), none of those a node in no part touches, and its scratch. And
//   a value that lives within p's steps (made and read by p alone, not kept: a weight
//   dequantized before its MatMul) or p's scratch shrinks U(s) or floor(s) only at a step s of
//   p's: at most the most such bytes of the parts whose steps hold one step (in order; else of
//   every part) count, as a constant F(x) frees whatever x is, and f_p counts the rest.
// - Chain: where the parts form a dependency chain (checked on the graph: every node of part
//   p is an ancestor of p's last node z_p, and every node of the next part q a descendant of
//   z_p; a value updated in place links its writer to its later readers: MLA's latent cache,
//   appended by a Concat and read by the scores and values), part p's nodes run on one unit's lane,
//   one at a time, within [its first start, z_p's end], and q starts after z_p ends; so those spans
//   are disjoint and ordered. The nodes in no part (always on the device, one at a time) that
//   descend from z_p and that every node of q depends on run between the two spans; those every
//   node of the first part depends on run before it, those descending from the last part's last
//   node after it. With S their device time, T >= L(x) = S + sum_p (x_p h_p + (1 - x_p) d_p). L >=
//   H always, so with a chain H is dropped. A decoder is such a chain: layer N's MLP feeds layer
//   N+1's attention (in S), which feeds its MLP. A MoE block is two parts whose steps interleave
//   (host_parts.h: its routed experts e, and the rest r: router, shared experts, final add), joined
//   into one link for the walk, ended at the node adding the two outputs (in no part; its time then
//   counts nowhere, which only lowers L). Within it, e's nodes run on one lane in step order, so
//   r's nodes that are ancestors of e's first node end before any of e starts, and those descending
//   from e's last node start after all of e ends; the shared experts may run beside e. So the
//   link's span is at least e's time plus those r nodes' time on r's unit: in L, r counts only them
//   (its chain times), which keeps L a sum of one term per part; L >= H no longer holds
//   (the shared experts' host time is left out), but dropping H stays valid.
// - In order: a plan runs each unit's compute steps in the order of its steps (its `order`:
//   one compute stream, one host lane, each in sequence order: simulate.h), whatever that
//   order is: the model's (the contenders', the planner's where it keeps it) or another (the
//   planner's with weights prepared early, prep_early_order.h). Given that order O, let "late"
//   be q's first node in O that descends from z_p: it starts after z_p ends, and so does every
//   node of late's part after it in O (on the same unit, one at a time after it), whether or
//   not it descends; q's nodes before late in O (a weight's dequantization, which reads no
//   activation: ahead of its first MatMul in the model's order, or moved into the device's
//   wait for the host, before the previous link ends, in the prepared-early one) may run
//   anywhere earlier, and their times leave q's chain times (on either unit, where those count
//   them: a MoE block's rest counts only its nodes before and after the routed experts), which
//   only lowers L; the other part of a MoE link must descend node by node as out of order.
//   The walk's windows (the parts, their steps, S) stay in the model's order: they only limit
//   which dependencies the walk follows, and dependencies hold in any order. So the bound for
//   O (`in_order`: O is the order the device-only bound was taken in) holds for every plan
//   whose compute steps follow O; a plan in another order gets the bound for its own. The
//   transient bytes (above, "Link") likewise live within their part's first and last steps
//   in O.
// - Sparsity (issue 31): a com.microsoft MoE/QMoE node, or an expert Gather of the gather form
//   (its table: core/expert_gather.h), reads only the experts its tokens route to (routing.h:
//   k of E for one token, E(1-(1-k/E)^T) for T in expectation), so its node time on either
//   unit is over those bytes (node_bytes.cc), and the bound is taken over
//   a larger space: plans that, for a stacked operand of W bytes not wholly resident, bring to
//   the device each iteration only the experts the router picks among those not resident
//   (fetch after route with hot experts resident: planner/expert_placement.h); plans that
//   move whole tensors are in it too. At the term's step, bytes(N) >= M_t - F(x) of U(s) are
//   off the device for the placement x; a byte of N costs one byte of transfer, or at least
//   t_min >= 1 - rho of one when it belongs to a stacked operand's expert e, touched with
//   probability t_e = 1 - (1 - p_e)^T (rho: the largest 1 - min_e t_e of a routed node; under
//   uniform routing the unrouted share (W - R) / W); and N's stacked bytes save at most Z (the
//   sum of W - R over every routed node: keeping h experts resident saves their h slices of
//   transfer share only, sum of t_e <= h). So T >= (M_t - F(x) - Z) / r_t and T >= (1 -
//   rho)(M_t - F(x)) / r_t, the second a transfer term at rate r_t / (1 - rho): both join the
//   terms.
// - Fetch after route (routed_lane_bound.h): on a chain, a stacked expert byte off the device
//   at its router's step crosses after the router and before its MoE node, inside the block's
//   link span, so it costs lane time (t per byte over the device's in-rate) where the sparse
//   terms above let it cost nothing; or it crosses before the router, whole. A third condition.
// - Device lane: the device runs its nodes one at a time, so T >= D(x) = no-part time + sum
//   (1 - x_p) d_p, while the host lane holds T >= H(x).
// - Timed terms with relief (relief_condition.h): the device-only bound's write-back term
//   (host_write_back.h), with the state the host updates and the values it produces taken out
//   of what the device must send home, and its late-fetch term (host_late_fetch.h), with the
//   values only host parts read after the step taken out of what must come back, and its cut
//   term (host_cut.h: the Stores before a step, then the fetches after it). Each is one
//   more condition: the lane (L or H, and D) within T while that term is, over its own
//   relaxation (its relief per part differs from f_p). At x = 0 each is the device-only term
//   less the parts' device time in its window; they let the relaxation's optimum move to where
//   the host does relieve the device (a training step's optimizer updates).
// - Spill (spill_lane_bound.h): what the device's and the host unit's memory cannot keep
//   crosses in from a far tier (nvme) every iteration, whichever unit reads it: a floor.
// The bound is the least integer T for which some x in [0,1]^P has L(x) or H(x) <= T and
// every (M_t - F(x)) / r_t <= T, some (possibly other) x has D(x) <= T and H(x) <= T, and the
// fetch-after-route condition holds at T (on a chain with MoE nodes); then the larger of that,
// the least T of each timed condition with relief and the no-part device time. Any placement
// that makes T meets every condition with one x, so each condition apart is necessary and the
// fractional relaxation only lowers it: the bound is valid. Without the device-lane condition the
// relaxation could leave parts on the device and count none of their device time (a part slower on
// the host than the whole device lane left the bound at the no-part time); on the rows measured
// (Llama-3-8B training and 70B int4 decode) it does not bind: the training step's bound is its
// no-part device time, 2.73 s (docs/benchmarks.md, "The training row, host-updated weights
// streamed").
// Whole parts (whole_parts.h): a plan's x is whole, so the count of one kind's parts on the
// host is an integer; where the relaxation's count of a kind is fractional, the least T over
// the two sides of a split at its floor (each condition solved with the count constrained) is
// a bound too, and the larger of the two bounds is kept.
// Solved exactly (to 1 ns): parts that cost no lane time on the host (h_p <= d_p on a chain)
// go there free; the rest, sorted by added lane time per freed byte, give the least lane time
// c(F) that frees F bytes (a fractional knapsack, convex and increasing in F); the parts
// sorted by host time per device ns give the least host time g(D) that takes D ns off the
// device (the same); a bisection on T finds the least integer T with c(F(T)) <= T for the
// least F(T) the transfer terms need and g(all device time - T) <= T (both monotone in T;
// makespans are whole ns, so ceil(T*) is a bound too).
// Cost: O(parts log parts) plus the chain check's walks: per part, one walk from each of its
// nodes over the steps back to the previous part and one forward to the next (O((nodes + uses)
// log nodes) for a decoder), and the walks before the first part and after the last. Limits: the
// device-only bound's forced-bytes terms with the relief F(x); its late-fetch term and the
// stored half of its write-back term over the values no part touches, as a floor
// (host_timed_terms.h: the training step on rtx-4090-xeon-2s, 2.73 -> 3.47 s), and both with
// relief per part only at a few steps (host_write_back.h, host_late_fetch.h: on that row their
// optimum is every optimizer update on the host, 3.46 to 3.56 s by order, below the floor),
// and the cut term with relief (host_cut.h: there 3.88 s in the least order, with every update
// on the host, which binds); crossing transfers and their latency are not counted; the fresh
// fetches of values the host updates in place are not counted; parts only (a placement that is
// no union of one family's parts is outside the space); with T > 1 tokens the routed bytes are
// an expectation (as the node times are), so it bounds the mean routing.
#pragma once

#include <cstdint>
#include <vector>

#include "contenders/context.h"
#include "contenders/lower_bounds.h"
#include "contenders/relief_condition.h"
#include "hyperplan/planner/host_parts.h"

namespace hyperplan::contenders {

// One part's times and the bytes it frees on the device when it runs on the host.
struct HostBoundPart {
  int64_t device_ns = 0;
  int64_t host_ns = 0;
  int64_t freed_bytes = 0;
  // On a chain, the times that count in L (-1: device_ns, host_ns): a MoE block's rest counts
  // its nodes before and after the routed experts only (see above).
  int64_t chain_device_ns = -1;
  int64_t chain_host_ns = -1;
  // Fetch after route (routed_lane_bound.h), a routed-experts part only: the stacked expert
  // bytes of its MoE node, the least chance an iteration touches one of its experts, and the
  // time of the nodes between its router and the MoE node (larger of device and host).
  int64_t routed_bytes = 0;
  double touch = 1;
  int64_t overlap_ns = 0;
  // The class of parts whose count on the host the whole-parts split may constrain
  // (whole_parts.h): the part's kind (HostPartKind); -1: in none.
  int split_class = -1;
};

// T >= (bytes - freed) / bytes_per_s.
struct ForcedTransfer {
  int64_t bytes = 0;
  int64_t bytes_per_s = 0;
};

struct HostBoundInputs {
  std::vector<HostBoundPart> parts;
  int64_t fixed_device_ns = 0;  // nodes in no part
  // With no part every plan is the device's alone, so the device-only bound (lower_bounds.h,
  // with its late-fetch and write-back terms) holds as is; 0 otherwise.
  int64_t device_only_ns = 0;
  bool chain = false;
  int64_t serial_device_ns = 0;  // S: nodes in no part before, between and after the chain
  std::vector<ForcedTransfer> transfers;
  // The timed terms over the values no part touches (host_timed_terms.h): a floor for every x.
  int64_t timed_ns = 0;
  // Freed whatever the placement (above, "Link"): the most bytes of values that live within one
  // part's steps (and scratch) live at one step; parts' freed_bytes count the rest.
  int64_t transient_freed_bytes = 0;
  // The fetch-after-route condition (routed_lane_bound.h): whether it applies, the device-only
  // terms as they are (before the sparse terms) and the device's summed in-rate.
  bool routed_lane = false;
  std::vector<ForcedTransfer> whole_transfers;
  int64_t into_device_bytes_per_s = 0;
  // The timed conditions (relief_condition.h: host_write_back.h, host_late_fetch.h), each a
  // transfer term with its own relief per part.
  std::vector<ReliefCondition> relief_conditions;
  // The spill past the compute tiers (spill_lane_bound.h): a floor for every x, and the bytes
  // it crosses.
  int64_t spill_ns = 0;
  int64_t spill_bytes = 0;
};

struct HostAwareBound {
  int64_t makespan_ns = 0;
  bool chain = false;
  // sum x_p at the relaxation's optimum (fractional), and F(x) there; where fetch after route
  // binds, its condition's (freed_bytes then counts a byte fetched after route as 1 - t).
  double host_parts = 0;
  int64_t freed_bytes = 0;
  int part_count = 0;
  bool attention_cores = false;  // the family that gave the bound: attention cores (FlexGen's)
  int64_t timed_ns = 0;          // the timed terms' floor (HostBoundInputs::timed_ns)
  // The fetch-after-route condition binds the lanes' relaxation: without it that relaxation's
  // least T would be lower (a relief condition may still bind above it: relief_binds).
  bool routed_lane_binds = false;
  // The largest least T of the relief conditions (HostBoundInputs::relief_conditions; 0: none),
  // and whether it binds (host_parts and freed_bytes are then its condition's: freed_bytes
  // counts that condition's relief).
  int64_t relief_ns = 0;
  bool relief_binds = false;
  // Whole parts (whole_parts.h), where the relaxation's count of a class's parts (split_class)
  // is fractional (split_count >= 0): the least T with at most split_count of them on the
  // host, with at least one more, and the lesser of the two (a bound).
  int split_class = -1;
  int split_count = -1;
  int64_t at_most_ns = 0;
  int64_t at_least_ns = 0;
  int64_t whole_parts_ns = 0;
  // The spill past the compute tiers (spill_lane_bound.h) is the bound, over `spill_bytes`.
  bool spill_binds = false;
  int64_t spill_bytes = 0;
};

// The bound for given inputs (see above).
HostAwareBound SolveHostAwareBound(const HostBoundInputs& inputs);

// Whether consecutive `parts` (in step order, problem.order) form a dependency chain, and S
// (above; 0 when they do not). `plan_order` (null: any order): for plans whose compute steps
// follow it (above, "In order"); early_nodes then holds the parts' nodes left out of L.
// `part_of` (by NodeId, empty: each of `parts` one part) says which part runs a node: a link
// of two parts (a MoE block) may span two units.
struct ChainWalk {
  bool chain = false;
  int64_t serial_device_ns = 0;
  std::vector<NodeId> early_nodes;
};
ChainWalk WalkChain(const Problem& problem, const std::vector<HostPart>& parts,
                    const std::vector<NodeId>* plan_order = nullptr, std::vector<int> part_of = {});

// The inputs for `problem` (every node on the device) with the device-only bound `device`
// computed for it at the budget in some order O (device.order, a topological order of
// problem.graph): the eligible parts of the family `options` selects, their freed bytes, the
// chain check and the transfer terms. `in_order`: for the plans whose compute steps follow O
// (above, "In order"); else for plans in O's steps run in any order.
HostBoundInputs HostBoundInputsFor(const Problem& problem, const LowerBounds& device,
                                   const HostPartOptions& options = {}, bool in_order = false);

// The lesser of SolveHostAwareBound(HostBoundInputsFor(problem, device, options)) over the two
// part families: the default one and the one with attention cores instead of attention.
HostAwareBound ComputeHostAwareBound(const Problem& problem, const LowerBounds& device,
                                     bool in_order = false);

}  // namespace hyperplan::contenders
