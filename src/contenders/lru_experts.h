// The LRU expert cache with fetch on demand (Mixtral-offloading: Eliseev & Mazur, "Fast
// Inference of Mixture-of-Experts Language Models with Offloading", arXiv 2312.17238, 2023;
// dvmazur/mixtral-offloading) as a contender (issue 31).
//
// Its policy: every layer keeps C experts on the device in an LRU cache; the router picks a
// token's experts, a hit runs at once, a miss loads the expert from host memory into the
// cache's least recently used slot; everything but the experts stays on the device. Here:
// - the device side is the planner's own plan of the device-only problem with stacked expert
//   tensors moved whole (PlanOffload, host_compute and route_fetch off), planned to the budget
//   less C slices of every stacked operand (the cache's room); each expert operand it streams
//   (planner/expert_placement.h FindStreamedOperands) becomes a fetch after route with C slots
//   resident the whole iteration (a partial residency of C slices) and the misses' bytes
//   moved; operands the planner still holds whole stay so (a cache of all E experts);
// - the misses: each MoE node's LRU of C slots replayed through kLruWarmup + kLruIterations
//   seeded routings (routing_samples.h, seed 1, iterations 0, 1, ...; each touched expert, in
//   ascending index, made most recent, the least recent evicted past C), the mean misses over
//   the last kLruIterations an iteration's fetched experts (hit rate = 1 - misses / touched);
// - C: the most slots (at most E - 1) whose plan, laid out, fits the budget (bisection).
// Not modelled: speculative loading of the next layer's experts (the paper's second
// technique, guessing from the current hidden state) and its mixed quantization (the model's
// own dtypes are planned). Routings of successive iterations are drawn independently
// (routing.h), with none of the temporal locality real routers show, so the hit rate is about
// C / E under uniform routing (the paper reports 40-60% hits for Mixtral with C = 2-4 of 8).
// The plan's partial residencies name slots 0..C-1 as experts (what the verifier checks); a
// runtime's cache contents change with the routing, so sampled-routing replays of this plan
// (routing_spread.h) count misses against those fixed experts, not the LRU.
// Cost: per C tried (about log2(E), bisection), one PlanOffload, one FinishPlan and
// (kLruWarmup + kLruIterations) routings per MoE node. Limits: the routed nodes of
// routed_fetch.h (MoE/QMoE nodes, the gather form's expert Gathers, each Gather its own cache
// of C slots though a layer's Gathers replay the same routing), one hop.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "contenders/context.h"
#include "hyperplan/planner/planner.h"
#include "hyperplan/routing_samples.h"

namespace hyperplan::contenders {

inline constexpr int32_t kLruWarmup = 16;
inline constexpr int32_t kLruIterations = 64;

// Mean experts an iteration misses in an LRU of `slots` experts of `routing`'s node, after the
// warm-up, over kLruIterations seeded routings.
double MeanLruMisses(const MoeRouting& routing, int64_t slots);

struct LruExpertsResult {
  bool built = false;
  int64_t slots = 0;      // C: cached experts per MoE layer
  double hit_rate = 0.0;  // over every MoE node: 1 - misses / touched
  std::string note;       // "C = 2 of 8 experts cached per layer, 26% hits", or why not built
  PlanResult result;
};

// Throws like PlanOffload.
LruExpertsResult LruExpertCachePlan(const ContenderContext& context, std::optional<int64_t> budget);

}  // namespace hyperplan::contenders
