// The field's mixture-of-experts placements as contenders (issue 31): routed experts computed
// by the host CPU where they live, everything else on the device, the device side planned by
// the planner on the placed problem (PlanOffload after PlaceUnits), so only the placement
// differs from hyperplan's.
//
// A layer's routed experts are its kRoutedExperts host part (host_parts.h): the com.microsoft
// MoE/QMoE node in the ort form; the Gathers, batched MatMuls and weighted sum in the gather
// form. The router and the shared experts stay on the device, and the final add of shared and
// routed outputs with them; the router's output and the block's input cross to the host, its
// output back (host_crossings.h).
//
// The placements, each read from its system's source (2026-11):
// - KTransformers (Chen et al., "KTransformers: Unleashing the Full Potential of CPU/GPU
//   Hybrid Inference for MoE Models", SOSP 2025; kvcache-ai/ktransformers
//   doc/en/injection_tutorial.md and its optimize rules): "shared experts on the GPU and
//   routed experts on the CPU" (AMX/AVX-512 kernels over the experts' host copies), attention,
//   norms, router and LM head on the GPU (`^model\.layers\..*\.|^lm_head` generate_device
//   cuda), the token embedding on the CPU (`^model.embed_tokens` generate_device cpu).
// - KTransformers' GPU-resident experts: its multi-GPU optimize rules put the experts of
//   chosen layers on a GPU (`^model\.layers\.([3-4])\.mlp\.experts$`, KExpertsMarlin, "each
//   layer of marlin experts takes about 6GB of GPU memory"), first MoE layers first in the
//   shipped examples; with its SGLang backend `--kt-num-gpu-experts N` keeps N experts per
//   layer on the GPU (doc/en/kt-kernel/experts-sched-Tutorial.md), experts placed one by one
//   (a plan can now say it: ResidentInterval::experts) but computed where they live, the GPU's
//   on the GPU and the rest on the CPU, which splits one MoE node across units: not built.
//   The per-layer rule, as many leading MoE layers as fit, is also what llama.cpp's `--fit`
//   gives a MoE model
//   (common/fit.cpp, common_params_fit_impl step 4: every expert tensor on the CPU, then
//   "dense-only" layers converted back to full layers front to back while the device has
//   room): one contender, kGpuExpertsFirst.
// - llama.cpp `--n-cpu-moe N` (common/arg.cpp): the expert tensors (`blk.N.ffn_(up|gate|
//   down)_exps`) of the first N layers kept in host memory and computed by the CPU, the fewest
//   N that fit; N = every MoE layer is `--cpu-moe` / `-ot exps=CPU`. The token embedding on
//   the CPU, as llama.cpp always keeps it (llama_cpp_ffn.h).
// The LRU expert cache with fetch on demand (Mixtral-offloading, Eliseev & Mazur 2023) is its
// own contender (lru_experts.h: fetch after route into C cached slots per layer).
// KTransformers' Expert Deferral (some experts' outputs added a layer later) changes the
// model's function, not a placement: not built.
// Fit: a placement fits when the placed problem's no-offload live peak on the device is
// within the budget (as llama_cpp_ffn.h); the peak falls as layers' experts go to the host, so
// the counts are found by bisection. When even every routed expert on the host leaves the rest
// too big, nothing is built (the note says by how much): these systems fail to load there.
// Cost: about log2(MoE layers) PlaceUnits (lifetimes and host rooflines), FindHostParts once,
// and one planning. Limits: MoE blocks as host_parts.h finds them (named layers only).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "contenders/context.h"
#include "hyperplan/planner/planner.h"

namespace hyperplan::contenders {

// One MoE layer's routed experts: the nodes that run them, in the problem's order.
struct RoutedExperts {
  int layer = -1;
  std::vector<NodeId> nodes;
};

// Every MoE layer's routed experts, by layer (none: no MoE block the host may run).
std::vector<RoutedExperts> FindRoutedExperts(const Problem& problem);

enum class MoePlacement : uint8_t {
  kKTransformers,    // every layer's routed experts on the host, the embedding too
  kGpuExpertsFirst,  // llama.cpp --fit / KTransformers' per-layer GPU experts
  kLlamaCppNCpuMoe,  // llama.cpp --n-cpu-moe N, the fewest N that fit
};

struct MoeOffloadResult {
  bool built = false;          // false: see `note`; `result` is empty
  int host_expert_layers = 0;  // MoE layers whose routed experts run on the host
  int expert_layers = 0;       // MoE layers found
  std::string note;            // "--n-cpu-moe 40 (of 58 MoE layers)", or why not built
  PlanResult result;
};

// Throws like PlanOffload.
MoeOffloadResult MoeOffloadPlan(const ContenderContext& context, std::optional<int64_t> budget,
                                MoePlacement placement);

}  // namespace hyperplan::contenders
