// Host placement: PlanOffload's search over which layer parts run on the host (issue 30).
//
// Where the device's plan does not fit, or stalls longer than moving the cheapest part would
// add on the host (its weights stream over a link, or cannot),
// the eligible parts (host_parts.h) are ranked by the host time they add per device byte they
// free ((host_ns - device_ns) / device_bytes(): weights and state, least first: at decode an MLP
// read from DDR adds little, at prefill its FLOPs on CPUs add much), and the leading parts whose
// weights cover 1/4, 1/2, 3/4, 1 and 5/4 of the bytes the device lacks at its no-offload peak (live
// peak less the budget, or the device's capacity) are each planned as a problem of their own
// (PlaceUnits): the rest of the gap is streamed by the planner as before, behind the host's
// compute where the link is otherwise idle. Then, three times, the counts halfway between the
// best so far and its nearest tried neighbours (the best mix of host reads and streaming lies
// between two quarters: on Llama-3-70B int4 decode on rtx-4090, 3/4 of the gap on the host ran
// 275 ms, all of it 296 ms, none 793 ms). The best plan wins: fits first, then the shortest
// iteration, then fewer bytes moved; the device's plan is kept on ties. So the decision flips
// by itself: at batch-1 decode the host reads a layer faster than PCIe brings it, at prefill
// the device computes it far faster than the host.
// Interleaved: a prefix keeps every parts-th MLP on the device, so the link streams it behind
// the host's work on the MLPs before it (a contiguous prefix cannot: the device's layers after
// it must all be resident when the host's end, and the link idles behind the host; on
// Llama-3-70B int4 decode on rtx-4090 the best prefix, 34 parts, ran 242 ms with the link
// busy 57%). With the best prefix found, the interleaved ranking is planned at 2 and 3 parts
// fewer, with the crossings' link time reserved (Problem::reserve_crossings: a weight's
// Prefetch queued ahead of a crossing on the FIFO channel would hold the chain back): 226 ms,
// the link busy 90% (the bound with host compute: 210.3 ms). Then two rounds of halvings
// between the best interleaved count and its nearest tried neighbours, the count at which the
// lanes balance (BalancedCount) standing for the lower end: where the host's layers are dear
// the best interleaved count lies well below the best prefix (Llama-3-70B decode 32k on gh200:
// best prefix 25 parts, 115.1 ms; 23 and 22 interleaved 108.9 and 105.8 ms; the halvings from
// the balance at 15 try 18 and 20, then 16 and 19: 94.3 ms at 18).
// The parts that update persistent state in place (a layer's attention with its KV cache, a
// layer's optimizer update) are left out of that search and searched after it, the same way
// over every part, then in llama.cpp -ngl's order (the embedding, then each layer's MLP before
// its attention: whole layers from the first) at fit's count, the fewest whose placement's
// no-offload peak fits; each replaces the plan only when it beats it. So being offered them never
// makes the plan worse: ranked with the MLPs from the start, they made Llama-3-70B int4 decode on
// rtx-4090 292.7 ms against 226 ms without them.
// Last, the field's placements whole (FlexGen's CPU attention: every layer's attention core
// on the host, a part kind the rankings never hold), each planned once and kept only when it
// beats the best; tried also where no ranked part is eligible (the DeepSeek-V3-sized decode on
// gh200: its weights spill to NVMe, so no MLP or whole attention may run on the host, but the
// KV caches live in DDR: 58.2 s against 58.3 s).
// Cost: up to seventeen more plannings of the problem (two on graphs above kSecondChoiceLimit
// steps: the whole gap and half of it, no halving, no interleaving), plus FindHostParts;
// where parts updating state exist, up to eighteen more (three on large graphs) and a
// bisection of placements (no planning) for fit's count; one more for the field's placements
// where attention cores exist and could pay. A placement two rankings share is planned once
// (the same placement plans the same plan).
// Limits: prefixes of three rankings, not a search over subsets; parts only (host_parts.h);
// one gap for every MLP (from their sums).
#pragma once

#include <functional>
#include <vector>

#include "hyperplan/planner/host_parts.h"
#include "hyperplan/planner/options.h"
#include "hyperplan/planner/planner.h"
#include "hyperplan/planner/problem.h"

namespace hyperplan::planner {

using PlanProblem = std::function<PlanResult(const Problem&)>;

// How many consecutive MLP parts share one kept on the device, so that the link streams its
// weights behind the host's work on the others: each host MLP leaves the link its host time
// less the transfer of its layer's other weights (its attention, streamed behind it), and a
// device MLP needs the transfer of its own weights; gap = 1 + ceil(need / spare), each summed
// over the MLP parts, on the link from the host tier to the device. 0 (no interleaving) where
// the host time leaves the link nothing.
int InterleaveGap(const Problem& problem, const std::vector<HostPart>& parts);

// The fewest leading parts of `ranked` at which the lanes balance at their least: the device
// time of every node plus what the parts add on the host (in a chain of layers the two units
// take turns) reaches the link time of the bytes the device still lacks (`missing_bytes` less
// the parts' device bytes, over the link from the host tier to the device). With fewer parts
// the link is the longer lane even carrying only those bytes; a plan carries more (room for the
// fetches in flight), so the best count tends to lie above it: on Llama-3-70B decode 32k on
// gh200 it is 15 parts and the best interleaved count 18, whose plan moves 37.4 GB where 31 GB
// are missing. ranked.size() when the lanes never balance; 0 without a direct link.
size_t BalancedCount(const Problem& problem, const std::vector<HostPart>& ranked,
                     int64_t missing_bytes);

// `ranked` with every `gap`-th MLP part (in its order) moved to the end: a prefix of it runs
// gap - 1 of each `gap` consecutive MLPs on the host and keeps the last on the device.
std::vector<HostPart> Interleaved(const std::vector<HostPart>& ranked, int gap);

// `device` (the plan of `problem` with every node on the device) or a better plan with some
// parts on the host, each planned by `plan`.
PlanResult PlaceOnHostWhereFaster(const Problem& problem, const PlanOptions& options,
                                  PlanResult device, const PlanProblem& plan);

}  // namespace hyperplan::planner
