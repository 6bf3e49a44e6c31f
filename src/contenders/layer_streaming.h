// Layer streaming with a fixed lookahead: DeepSpeed ZeRO-Inference's weight streaming and
// Accelerate's offload hooks (device_map with CPU/disk offload).
//
// Weights are grouped by layer (hyperplan/layers.h). A "visit" is a maximal run of steps reading
// one layer's weights (a forward pass visits each layer once; a training step twice, forward and
// backward). The weights a visit reads are fetched when the visit `lookahead` visits earlier
// begins (lookahead 0: when the visit itself begins, so compute waits for the whole fetch, as
// Accelerate's pre-forward hook does; lookahead k >= 1: k layers in flight, as ZeRO-Inference
// prefetches) and dropped (Detach; a home copy exists) when the visit ends. Fetches of one
// weight whose windows touch merge into one residency. As Accelerate's device_map="auto",
// the first `resident_layers` layers (in order of first use) stay on the device for the whole
// run, and so do weights of no layer; activations never move, and KV caches only with state
// streaming (below). With a budget, resident_layers is the largest count whose arena fits
// (binary search; it never fits when streaming every layer does not); that plan may still
// overflow a host tier, and then none fits: more on the device only lowers what stages
// through host tiers. Transfers are asynchronous on the copy streams.
// Interleaved (hyperplan's own variant, not a peer's): the resident layers are spread evenly
// among the streamed ones instead of leading them (with S of L layers streamed, layer rank r
// streams when floor((r + 1) S / L) > floor(r S / L)), so a streamed layer's fetch overlaps
// the resident layers' compute before it and the link works through the whole iteration;
// with the leading layers resident it idles through them and binds the streamed tail.
// With state: the homed values that are not weights (the KV cache and optimizer state fed in)
// join the layer whose visit first reads them and stream with its weights, written back where
// updated in place, as FlexGen streams a layer's KV cache and ZeRO-Inference offloads it. With
// a budget they move only when streaming the weights alone leaves the arena over it (the cache
// of one decode sequence stays on the device; a batch-16 32k cache of 172 GB fits no 80 GB
// device otherwise), and the nearer plan to fitting is returned when neither fits.
// Staged (hyperplan's own, stage_lead_layers = L > 0): a value whose home sits behind a
// staging tier (NVMe behind DDR) has its staging hop issued L visits before its window's
// fetch (never before its previous window ends) and only the device hop at the fetch, so the
// NVMe read overlaps the layers streamed before it, as FlexGen pipelines disk -> CPU -> GPU;
// the staged copy waits in DDR in between (a tier copy like any other: a plan whose copies
// overflow DDR does not fit). Staged by room (hyperplan's own, stage_by_room): instead of a
// fixed lead, each staging hop goes at the earliest boundary where the staged copies not yet
// read, its own included, fit the staging tier's free room (what CopyReservations leaves),
// in the order the device reads them and never after the fetch: NVMe starts at the
// iteration's first step and stays as far ahead as DDR allows (Llama-3-70B decode batch 16
// on h100-sxm: 8.03 s at the best lead, +8; 7.63 s by room).
// Home-aware (hyperplan's own, slow_homes_resident): what stays on the device is chosen by
// value, not by layer: first the values whose home is behind a staging tier, then the rest in
// order of first use, the longest prefix of that list whose plan fits (binary search, ended
// once the values left undecided hold under 1/256 of the budget: each would cross NVMe once an
// iteration, and the DeepSeek-V3-sized decode's list is 45k values long). A value
// kept on the device crosses no link in steady state, so keeping the NVMe-homed ones is what
// the lower bound assumes: NVMe carries only the slow homes the device cannot keep. Where the
// homes spill to NVMe, spread over the iteration (homes.h), the leading layers hold a layer's
// share of NVMe-homed values and the rest of them cross NVMe every iteration (Llama-3-70B
// decode batch 16 on h100-sxm: 62.9 GB a token; home-aware: 31.2 GB).
// Cost: O(steps + uses) per plan, times log(layers) plans for the budget search (at most
// log(values of the layers), about 8, home-aware; twice with state when the weights alone do
// not fit).
// Limits: a layer's streamed values move together per visit, not per tensor use.
#pragma once

#include <cstdint>
#include <optional>

#include "contenders/context.h"
#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan::contenders {

struct LayerStreamingOptions {
  int lookahead_layers = 1;
  // Leading layers kept on the device; unset: the most that fit the budget (see above).
  std::optional<int> resident_layers;
  bool interleave = false;    // resident layers spread among the streamed ones (see above)
  bool stream_state = false;  // state a layer reads may stream with its weights (see above)
  // Visits by which a staging hop (NVMe -> DDR) runs ahead of its device hop (see above).
  int stage_lead_layers = 0;
  // Staging hops issued as early as the staging tier's free room allows (see above).
  bool stage_by_room = false;
  // Resident by value, slow homes first (see above); resident_layers and interleave are then
  // ignored (without a budget every value streams, as in the layer forms).
  bool slow_homes_resident = false;
};

// The plan and its evaluation (EvaluatedPlan), with the layers it found and kept.
struct LayerStreamingResult : EvaluatedPlan {
  int layer_count = 0;      // layers found by name
  int resident_layers = 0;  // kept on the device
};

// What a budget search found: the resident units (layers, or values home-aware) kept, for
// the weights alone and with state streaming. A staged policy keeps its unstaged twin's device
// residency at every count (staging moves only staging-tier copies, and the search looks at
// the arena alone), so it reuses the twin's counts instead of searching again: on the
// DeepSeek-V3-sized decode each home-aware search builds about eight plans.
struct ResidentSearch {
  std::optional<int> weights_only_units;
  std::optional<int> with_state_units;
};

// `search`, when given, supplies the counts a search with the same device residency found
// (and receives the counts this one finds where it had none).
LayerStreamingResult LayerStreamingPlan(const ContenderContext& context,
                                        std::optional<int64_t> budget_bytes,
                                        const LayerStreamingOptions& options,
                                        ResidentSearch* search = nullptr);

}  // namespace hyperplan::contenders
