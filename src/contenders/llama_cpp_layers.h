// llama.cpp's -ngl placement as a contender (issue 30), with --fit's dense rule: whole layers
// on the GPU from the last one forwards, the layers before them on the CPU with their KV
// cache, the first partial layer's FFN overflowing to the CPU, the token embedding always on
// the CPU; nothing streamed over PCIe.
//
// What llama.cpp does (ggml-org/llama.cpp, read 2026-11; see llama_cpp_ffn.h for -ot):
// - `-ngl N` offloads the last N repeating layers to the GPU; the others run on the CPU from
//   host memory, attention with its KV cache included (the KV of a layer lives where the layer
//   runs). The input layer (the token embedding) always stays on the CPU
//   (src/llama-model.cpp, load_tensors); the output layer goes to the GPU with the layers.
// - `--fit` (common/fit.cpp, PR 16653): "fill dense layers back-to-front": whole layers on the
//   GPU from the last one forwards while they fit, then the first partial layer: its attention
//   on the GPU and its FFN (blk.N.ffn_(gate|up|down)) on the CPU.
// Built here: the configurations in the order fit fills them, c = 0 .. 2L for L layers: the
// last c/2 layers whole on the GPU and, for odd c, layer L - c/2 - 1's FFN on the CPU and its
// attention on the GPU; every layer before on the CPU (its attention with the KV cache and its
// MLP: host_parts.h kAttention and kMlp; the norms between them, one hidden-size vector of
// weights each, stay on the GPU, as host_parts.h keeps a part to one weight family), the
// embedding on the CPU, the final norm and LM head on the GPU. The device's live peak
// grows with c, so the largest c whose placement fits the budget with nothing streamed (the
// no-offload live peak of the placed problem) is found by bisection; the device side is then
// planned by the planner (placed_plan.h). Host layers append to their KV cache in place on the
// host (docs/design.md "Compute units").
// Cost: FindHostParts, about log2(2L) placements (PlaceUnits) and one planning. Limits: layers
// whose attention and MLP parts are both eligible (host_parts.h); fit's MoE rule is not built.
#pragma once

#include <cstdint>
#include <optional>

#include "contenders/context.h"
#include "contenders/placed_plan.h"

namespace hyperplan::contenders {

// host_pieces: layers on the CPU whole; pieces: the layers. `note`: "-ngl 48 (32/80 layers on
// the CPU, layer 31's FFN too)" or why not built. Throws like PlanOffload.
PlacementResult LlamaCppLayersPlan(const ContenderContext& context, std::optional<int64_t> budget);

}  // namespace hyperplan::contenders
