// The spill past the compute tiers (issue 31): a floor of the host-aware bound
// (host_lower_bound.h) for models larger than the memory the compute units read.
//
// The compute tiers are the device's and the host compute unit's memory tier (hbm and ddr on
// h100-sxm); the others (nvme) are far. A node reads its operands in its unit's tier, so a
// byte on a far tier alone is read only after it crosses a link from a far tier into a
// compute tier (nvme -> ddr). Take a plan (one iteration of a loop: its persistent values'
// placement at the end is the one at the start), and a byte b of a value that exists before
// the iteration (a weight, a cache) and is read in it; b is "kept" when it is in a compute
// tier at every moment of the iteration. At every moment the kept bytes are in the compute
// tiers, so they total at most K, the sum of those tiers' capacities (the device's at its
// capacity, which no budget exceeds). A byte not kept is on a far tier alone at some moment m:
// - read by a node that reads it whole (any node but a MoE node's routed expert operand), it
//   crosses into a compute tier between m and that read, cyclically around the loop: once at
//   least in the iteration;
// - of a stacked expert operand that only its MoE node reads (routed_fetch.h), it is, when the
//   node's router runs, either in a compute tier (then it crossed since m, cyclically: once),
//   or not, and then it crosses when the routing picks its expert e, which the router draws
//   independently of where b is then (the placement at that moment was decided before): with
//   chance t_e, e's touch probability (routing.h). So b crosses at least t_e times in
//   expectation.
// A byte of cost c (1, or t_e) not kept costs c crossings in expectation, and the plan keeps
// some bytes within K: so the expected bytes crossing are at least the least cost of leaving
// out all but K bytes, a fractional knapsack (lane_options.h: leave out the cheapest per byte
// first). They cross the far-to-compute links, whose summed bandwidth r bounds them: every
// plan (any unit, any order, any placement) takes T >= that / r. The routed Prefetch's bytes
// are rounded to the byte (routed_fetch.h): one byte less per routed operand keeps it below.
// Cost: O(values + experts log experts). Limits: the values produced in the iteration and the
// tiers' alignment and staging room are not counted (they only take room, which would raise
// it); latency and channels are ignored; in expectation over routings, as the routed
// Prefetches and node times are; 0 where every byte fits (or a compute tier is unlimited).
#pragma once

#include <cstdint>
#include <vector>

#include "contenders/lane_options.h"
#include "hyperplan/planner/problem.h"

namespace hyperplan::contenders {

struct SpillTerm {
  int64_t ns = 0;              // the floor: crossing_bytes over far_bytes_per_s (0: none)
  int64_t crossing_bytes = 0;  // expected bytes into the compute tiers per iteration, at least
  int64_t read_bytes = 0;      // bytes of the values existing before the iteration and read in it
  int64_t compute_capacity_bytes = 0;  // K
  int64_t far_bytes_per_s = 0;         // r
};

// The least expected crossing of `items` (each a byte range: freed_bytes its bytes, cost_ns
// its crossings per byte times its bytes) with at most `capacity_bytes` of them kept.
long double LeastSpillCrossing(std::vector<LaneOption> items, long double capacity_bytes);

// The term for `problem` (0 without a far tier linked into a compute tier).
SpillTerm ComputeSpillTerm(const Problem& problem);

}  // namespace hyperplan::contenders
