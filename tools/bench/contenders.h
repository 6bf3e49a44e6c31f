// The contenders of the comparison: every contender (src/contenders) and hyperplan's planner,
// each producing a Plan for the same graph, profile and budget, each plan checked by
// VerifyPlan before its numbers are used.
// Cost: one plan each (the budget searches inside the contenders included) plus a verification.
// Limits: the planner runs with its defaults (reordering allowed); the contenders keep the
// model's order.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "contenders/context.h"
#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan::bench {

enum class ContenderKind {
  kNoOffload,
  kReactive,
  kStreaming,       // parameter: lookahead layers
  kOpDistance,      // parameter: prefetch distance in ops
  kLlamaCppFfn,     // llama.cpp's -ot FFN placement (contenders/llama_cpp_ffn.h); host units only
  kLlamaCppLayers,  // llama.cpp's -ngl whole layers, fit's rule (llama_cpp_layers.h); likewise
  kFlexGen,         // FlexGen's CPU attention (flexgen_cpu_attention.h); likewise
  kZeroOffload,     // ZeRO-Offload's CPU optimizer step (zero_offload.h); likewise
  // Issue 31's MoE placements (contenders/moe_offload.h); host units and MoE models only.
  kKTransformers,
  kGpuExpertsFirst,  // llama.cpp --fit on a MoE model, KTransformers' per-layer GPU experts
  kLlamaCppNCpuMoe,
  kLruExperts,  // Mixtral-offloading's LRU expert cache (contenders/lru_experts.h); MoE models
  kHyperplan,
};

struct Contender {
  std::string name;
  ContenderKind kind;
  int parameter = 0;
};

// Reactive, streaming k = 0, 1, 2, op distance 4 and 32, where `profile` has a host unit
// llama.cpp's -ot FFN and -ngl placements, FlexGen's CPU attention and ZeRO-Offload's CPU
// optimizer step (each "not built" where the model has no such pieces), hyperplan (no
// offloading is the reference each table starts with, not a row per budget). With a host unit
// and `moe_model` (routed experts the host may run, moe_offload.h), KTransformers', llama.cpp
// --fit's and --n-cpu-moe's placements too. Not a contender: an LRU expert cache with fetch on
// demand (Mixtral-offloading, Eliseev & Mazur 2023) needs a data-dependent Prefetch the plan
// format does not have (moe_offload.h).
std::vector<Contender> BudgetContenders(const HardwareProfile& profile, bool moe_model = false);

// A contender's plan and its evaluation (EvaluatedPlan), with how the run went.
struct Outcome : EvaluatedPlan {
  bool ok = false;    // produced and verified
  bool fits = false;  // arena within the budget and the device
  std::string note;   // e.g. "12/32 layers resident", the planner's infeasibility, an error
  int64_t wall_ns = 0;
};

// `budget` unset: the no-budget mode (the planner's overhead mode; contenders use capacity).
Outcome RunContender(const Contender& contender, const contenders::ContenderContext& context,
                     std::optional<int64_t> budget, int64_t max_overhead_ppm = 10'000);

}  // namespace hyperplan::bench
