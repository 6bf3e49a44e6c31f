// Running one contender (see contenders.h).
#include "contenders.h"

#include <fmt/format.h>

#include <chrono>
#include <exception>

#include "contenders/flexgen_cpu_attention.h"
#include "contenders/layer_streaming.h"
#include "contenders/llama_cpp_ffn.h"
#include "contenders/llama_cpp_layers.h"
#include "contenders/lru_experts.h"
#include "contenders/moe_offload.h"
#include "contenders/no_offload.h"
#include "contenders/op_distance.h"
#include "contenders/portfolio.h"
#include "contenders/reactive_lru.h"
#include "contenders/zero_offload.h"
#include "format.h"
#include "hyperplan/plan/verify.h"
#include "hyperplan/planner/planner.h"

namespace hyperplan::bench {

namespace {

// A tier off the device whose simulated peak exceeds its capacity, or kNoTier.
TierId OverfullHostTier(const HardwareProfile& profile, const PlanEvaluation& evaluation) {
  const auto& peaks = evaluation.timeline.peak_bytes_per_tier;
  for (size_t tier = 0; tier < profile.tiers.size() && tier < peaks.size(); ++tier) {
    const int64_t capacity = profile.tiers[tier].capacity_bytes;
    if (static_cast<TierId>(tier) != profile.device_tier && capacity > 0 &&
        peaks[tier] > capacity) {
      return static_cast<TierId>(tier);
    }
  }
  return kNoTier;
}

// Verifies the outcome's plan and says whether it fits: a plan over a host tier's capacity is
// valid (its note names the tier) but does not fit.
void Judge(const Graph& graph, const HardwareProfile& profile, Outcome& outcome) {
  const VerifyResult verdict = VerifyPlan(graph, profile, outcome.plan, outcome.evaluation);
  const TierId full = OverfullHostTier(profile, outcome.evaluation);
  if (!verdict.ok && !(verdict.invariant == 2 && full != kNoTier)) {
    outcome.note = "INVALID: " + verdict.message;
    return;
  }
  outcome.ok = true;
  outcome.fits = outcome.evaluation.fits && full == kNoTier;
  if (full != kNoTier) {
    if (!outcome.note.empty()) outcome.note += "; ";
    outcome.note += fmt::format("{} over capacity: {}", profile.tiers[full].name,
                                Gigabytes(outcome.evaluation.timeline.peak_bytes_per_tier[full]));
  }
}

// What `hyperplan plan` returns (PlanBest), with the note saying who made it.
PlanResult HyperplanPlan(const contenders::ContenderContext& context, std::optional<int64_t> budget,
                         int64_t max_overhead_ppm, std::string& note) {
  PlanOptions options;
  options.budget_bytes = budget;
  options.max_overhead_ppm = max_overhead_ppm;
  options.node_time_ns = context.node_time_ns;
  options.single_run = !context.periodic;
  options.aliases = context.aliases;
  PlanResult result = contenders::PlanBest(*context.model, *context.profile, options);
  if (result.status == PlanStatus::kInfeasible) {
    note = result.infeasibility.message;
  } else if (result.plan.produced_by != "hyperplan") {
    note = fmt::format("won by {}'s plan; the planner's own: {}", result.plan.produced_by,
                       result.own_fits ? Duration(result.own_makespan_ns) : std::string("no fit"));
  } else if (result.plan.reordered) {
    note = "reordered: " + result.plan.order_name;
  }
  return result;
}

contenders::MoePlacement MoePlacementOf(ContenderKind kind) {
  if (kind == ContenderKind::kKTransformers) return contenders::MoePlacement::kKTransformers;
  return kind == ContenderKind::kGpuExpertsFirst ? contenders::MoePlacement::kGpuExpertsFirst
                                                 : contenders::MoePlacement::kLlamaCppNCpuMoe;
}

// Issue 31's MoE placements (moe_offload.h), as a contender's outcome.
bool RunMoePlacement(const contenders::ContenderContext& context, std::optional<int64_t> budget,
                     contenders::MoePlacement placement, Outcome& outcome) {
  auto result = contenders::MoeOffloadPlan(context, budget, placement);
  outcome.note = result.note;
  if (!result.built) return false;
  static_cast<EvaluatedPlan&>(outcome) = std::move(result.result);
  return true;
}

// The placement contenders of issue 30, as contenders/placed_plan.h's result.
contenders::PlacementResult PlacementPlan(ContenderKind kind,
                                          const contenders::ContenderContext& context,
                                          std::optional<int64_t> budget) {
  if (kind == ContenderKind::kLlamaCppFfn) {
    auto ffn = contenders::LlamaCppFfnPlan(context, budget);
    return {ffn.built, ffn.cpu_ffn_layers, ffn.ffn_parts, ffn.note, std::move(ffn.result)};
  }
  if (kind == ContenderKind::kLlamaCppLayers)
    return contenders::LlamaCppLayersPlan(context, budget);
  if (kind == ContenderKind::kFlexGen) return contenders::FlexGenCpuAttentionPlan(context, budget);
  return contenders::ZeroOffloadPlan(context, budget);
}

}  // namespace

std::vector<Contender> BudgetContenders(const HardwareProfile& profile, bool moe_model) {
  std::vector<Contender> contenders = {
      {"reactive LRU", ContenderKind::kReactive, 0},
      {"layer streaming k=0", ContenderKind::kStreaming, 0},
      {"layer streaming k=1", ContenderKind::kStreaming, 1},
      {"layer streaming k=2", ContenderKind::kStreaming, 2},
      {"op distance 4", ContenderKind::kOpDistance, 4},
      {"op distance 32", ContenderKind::kOpDistance, 32},
  };
  if (profile.host_compute.present()) {
    contenders.push_back({"llama.cpp -ot FFN on CPU", ContenderKind::kLlamaCppFfn, 0});
    contenders.push_back({"llama.cpp -ngl layers on CPU", ContenderKind::kLlamaCppLayers, 0});
    contenders.push_back({"FlexGen CPU attention", ContenderKind::kFlexGen, 0});
    contenders.push_back({"ZeRO-Offload CPU Adam", ContenderKind::kZeroOffload, 0});
  }
  if (profile.host_compute.present() && moe_model) {
    contenders.push_back(
        {"KTransformers (routed experts on CPU)", ContenderKind::kKTransformers, 0});
    contenders.push_back({"llama.cpp --fit MoE = KTransformers GPU experts by layer",
                          ContenderKind::kGpuExpertsFirst, 0});
    contenders.push_back({"llama.cpp --n-cpu-moe N", ContenderKind::kLlamaCppNCpuMoe, 0});
  }
  if (moe_model) {
    contenders.push_back({"LRU expert cache (Mixtral-offloading)", ContenderKind::kLruExperts, 0});
  }
  contenders.push_back({"**hyperplan**", ContenderKind::kHyperplan, 0});
  return contenders;
}

Outcome RunContender(const Contender& contender, const contenders::ContenderContext& context,
                     std::optional<int64_t> budget, int64_t max_overhead_ppm) {
  const Graph& graph = *context.model;  // PlanOffload and VerifyPlan take the model itself
  const HardwareProfile& profile = *context.profile;
  Outcome outcome;
  EvaluatedPlan& planned = outcome;  // the plan and its evaluation, as the policy returns them
  const auto start = std::chrono::steady_clock::now();
  try {
    switch (contender.kind) {
      case ContenderKind::kNoOffload:
        planned = contenders::NoOffloadPlan(context);
        break;
      case ContenderKind::kReactive:
        planned = contenders::ReactiveLruPlan(context, budget);
        break;
      case ContenderKind::kStreaming: {
        contenders::LayerStreamingOptions options;
        options.lookahead_layers = contender.parameter;
        options.stream_state = true;  // a layer's KV cache streams with it, as FlexGen does
        auto result = contenders::LayerStreamingPlan(context, budget, options);
        outcome.note =
            fmt::format("{}/{} layers resident", result.resident_layers, result.layer_count);
        planned = std::move(result);
        break;
      }
      case ContenderKind::kOpDistance: {
        contenders::OpDistanceOptions options;
        options.prefetch_distance_ops = contender.parameter;
        planned = contenders::OpDistancePlan(context, budget, options);
        break;
      }
      case ContenderKind::kKTransformers:
      case ContenderKind::kGpuExpertsFirst:
      case ContenderKind::kLlamaCppNCpuMoe:
        if (!RunMoePlacement(context, budget, MoePlacementOf(contender.kind), outcome))
          return outcome;
        break;
      case ContenderKind::kLruExperts: {
        auto result = contenders::LruExpertCachePlan(context, budget);
        outcome.note = result.note;
        if (!result.built) return outcome;
        planned = std::move(result.result);
        break;
      }
      case ContenderKind::kLlamaCppFfn:
      case ContenderKind::kLlamaCppLayers:
      case ContenderKind::kFlexGen:
      case ContenderKind::kZeroOffload: {
        auto result = PlacementPlan(contender.kind, context, budget);
        outcome.note = result.note;
        if (!result.built) return outcome;
        planned = std::move(result.result);
        break;
      }
      case ContenderKind::kHyperplan:
        planned = HyperplanPlan(context, budget, max_overhead_ppm, outcome.note);
        break;
    }
  } catch (const std::exception& error) {
    outcome.note = std::string("error: ") + error.what();
    return outcome;
  }
  outcome.wall_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count();
  Judge(graph, profile, outcome);
  return outcome;
}

}  // namespace hyperplan::bench
