// llama.cpp's tensor placement as a contender (issue 30): the FFN weights of the first N
// layers stay in host memory and the CPU computes those FFNs there; everything else is on the
// device, resident, with nothing streamed over PCIe.
//
// What llama.cpp does (ggml-org/llama.cpp, read 2026-11):
// - `-ngl N` offloads the last N repeating layers (and the output layer) to the GPU; the
//   others, attention with its KV cache included, run on the CPU from host memory. The input
//   layer (the token embedding) always stays on the CPU ("there is very little benefit to
//   offloading the input layer", src/llama-model.cpp, load_tensors).
// - `-ot "blk\.N\.ffn_.*=CPU"` (--override-tensor) keeps matching tensors in host memory,
//   computed by the CPU; `--n-cpu-moe N` writes such overrides for "the MoE weights of the
//   first N layers" (common/arg.cpp). Weights cross PCIe only for large batches.
// - `--fit` (common/fit.cpp, common_params_fit_impl, PR 16653, 2025): a dry-run allocation,
//   then a smaller context, then "fill dense layers back-to-front": whole layers on the GPU
//   from the last one forwards (-ngl, found by false position on measured memory), the first
//   partial layer overflowing its FFN (blk.N.ffn_(gate|up|down)) to the CPU; a MoE model first
//   keeps every expert tensor on the CPU, then turns dense-only layers into full ones
//   front-to-back.
// Built here: the `-ot` FFN rule in --n-cpu-moe's order, the fewest N such that the first N
// layers' MLP parts (host_parts.h) and the token embedding on the host leave the rest resident
// on the device (its no-offload live peak within the budget), found by bisection on N (the
// peak falls as N grows); the device side is then planned by the planner (PlanOffload on the
// placed problem, PlaceUnits), so only the placement differs from hyperplan's. When even every
// FFN on the host does not fit, llama.cpp would move whole layers (-ngl, fit's dense rule):
// that needs attention with its KV cache on the host, a host step writing persistent state,
// which the plan cannot express yet (docs/design.md "Compute units"); not built, and said so.
// FlexGen's CPU attention over an offloaded KV cache and ZeRO-Offload's CPU optimizer step
// need the same and are not built either.
// Cost: about log2(layers) placements (PlaceUnits: lifetimes and host rooflines) plus one
// planning. Limits: MLP parts as host_parts.h finds them (named layers only).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "contenders/context.h"
#include "hyperplan/planner/planner.h"

namespace hyperplan::contenders {

struct LlamaCppFfnResult {
  bool built = false;  // false: no placement of FFNs fits (see `note`); `plan` is empty
  int cpu_ffn_layers = 0;
  int ffn_parts = 0;  // MLP parts eligible
  std::string note;   // "-ot FFN of the first 46/80 layers on the CPU", or why not built
  PlanResult result;
};

// Throws like PlanOffload.
LlamaCppFfnResult LlamaCppFfnPlan(const ContenderContext& context, std::optional<int64_t> budget);

}  // namespace hyperplan::contenders
