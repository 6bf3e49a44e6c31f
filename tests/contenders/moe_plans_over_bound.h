// The MoE rows' plans held to the routed-lane bound (routed_lane_bound_test.cc,
// routed_gather_lane_test.cc): the planner's plan and each MoE contender's under one budget,
// each verified, each fitting one no faster than the in-order host bound of its own order.
#pragma once

#include <cstdint>
#include <string>

#include "contender_support.h"
#include "contenders/layer_streaming.h"
#include "contenders/lru_experts.h"
#include "contenders/moe_offload.h"
#include "hyperplan/planner/planner.h"

namespace hyperplan::contenders_test {

// Checks the plans of the planner, KTransformers' placement, llama.cpp's --fit and --n-cpu-moe
// rules and the LRU expert cache (those built) under `budget`, and layer streaming's when
// `with_layer_streaming`, against `bound_ns` (the in-order host bound in the context's order,
// OwnOrderHostBound for another). Returns how many fit.
inline int CheckMoePlansMeetBound(const Graph& graph, const HardwareProfile& profile,
                                  const contenders::ContenderContext& context, int64_t budget,
                                  int64_t bound_ns, bool with_layer_streaming) {
  int fitting = 0;
  auto check_plan = [&](const std::string& name, const auto& result) {
    INFO(name);
    RequireVerified(graph, profile, result.plan, result.evaluation);
    if (!result.evaluation.fits) return;
    CHECK(result.evaluation.timeline.makespan_ns >=
          OwnOrderHostBound(context, profile, budget, result.plan.order, bound_ns));
    ++fitting;
  };
  PlanOptions options;
  options.budget_bytes = budget;
  options.aliases = context.aliases;
  check_plan("planner", PlanOffload(graph, profile, options));
  for (auto placement :
       {contenders::MoePlacement::kKTransformers, contenders::MoePlacement::kGpuExpertsFirst,
        contenders::MoePlacement::kLlamaCppNCpuMoe}) {
    const auto moe = contenders::MoeOffloadPlan(context, budget, placement);
    if (moe.built) check_plan(moe.note, moe.result);
  }
  const auto lru = contenders::LruExpertCachePlan(context, budget);
  if (lru.built) check_plan(lru.note, lru.result);
  if (with_layer_streaming) {
    const auto streaming = contenders::LayerStreamingPlan(context, budget, {});
    if (streaming.layer_count > 0) check_plan("layer streaming", streaming);
  }
  return fitting;
}

}  // namespace hyperplan::contenders_test
