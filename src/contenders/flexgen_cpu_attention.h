// FlexGen's CPU attention as a contender (issue 30): the KV cache homed on the host and every
// layer's attention core over it (scores, softmax, weighted values, the K/V append) computed by
// the CPU there; the projections and the MLP on the device, their weights offloaded.
//
// What FlexGen does (Sheng et al., "FlexGen: High-Throughput Generative Inference of Large
// Language Models with a Single GPU", ICML 2023; FMInference/FlexGen flexgen/flex_opt.py):
// a policy places percentages of the weights, the KV cache and the activations on GPU, CPU
// and disk (`--percent wg wc cg cc hg hc`), and with `--cpu-cache-compute` the attention over
// a CPU-resident cache runs on the CPU, so the cache never crosses PCIe, only the new token's
// q/k/v (to the CPU) and the attention output (back). Its zig-zag block schedule walks a
// column of GPU batches per layer, so each layer's weights load once per block; at one GPU
// batch a block is a layer and the schedule is layer-by-layer weight streaming with the next
// layer's weights loaded behind the current layer's compute.
// Built here: the policy `--percent * * 0 100 * * --cpu-cache-compute` (the whole cache on the
// CPU): every layer's attention core (host_parts.h kAttentionCore) on the host, which reads and
// appends its layer's cache in place on the host tier; the device side (projections, MLP, LM head,
// their weights streamed or resident) planned by the planner at the budget (placed_plan.h),
// which streams layer by layer where that is what fits and can do no worse than FlexGen's
// fixed percentages on the same problem: a generous model of FlexGen's weight offloading.
// Not modelled: FlexGen's multiple GPU batches (a batch here is the model's batch dim), disk
// tiers, compression.
// Cost: FindHostParts, one PlaceUnits and one planning. Limits: attention cores as
// host_parts.h finds them (named layers); layers whose core is not eligible stay on the device.
#pragma once

#include <cstdint>
#include <optional>

#include "contenders/context.h"
#include "contenders/placed_plan.h"

namespace hyperplan::contenders {

// host_pieces: attention cores on the host; pieces: the named layers (layers.h). Throws like
// PlanOffload.
PlacementResult FlexGenCpuAttentionPlan(const ContenderContext& context,
                                        std::optional<int64_t> budget);

}  // namespace hyperplan::contenders
