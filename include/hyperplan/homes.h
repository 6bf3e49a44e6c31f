// Value homes: where each value's copy off the device lives. One policy, shared by the
// planner, every contender and the lower bound, so that all of them move the same bytes over
// the same routes.
//
// Preferred tiers. Weights live in the profile's weight home tier (kNoTier there: pinned on
// the device). KV cache and optimizer state that enter as graph inputs, and in a loop every
// value that persists across iterations, are "homed" in the offload tier: a copy exists off
// the device from the start, so leaving the device is a Detach alone. Every other value
// (activations, graph inputs and outputs, state the run produces) is "stored": leaving the
// device takes a Store to the offload tier first. The offload tier of a value is the
// non-device tier with routes both ways whose round trip for its size is cheapest (ties:
// lower tier id).
// Capacity and spill. Home copies occupy their tier for the whole run, and a tier takes them
// up to its capacity less a staging reserve (staging_reserve.h: at most 1/16 of it, kept for
// Stores and for the staging hops of routes through it, less when the model's Stores and its
// largest staged value need less). When a tier's homes do not fit, the values
// that move are spread evenly over the iteration: walking the tier's homed values in order of
// first use (in the model's order), a value moves whenever the bytes moved so far fall behind
// the overflow's share of the bytes walked so far (a quarter over: every fourth weight of a
// uniform chain), each to the tier with the fastest route to the device that still has room
// (NVMe behind DDR; a value written in place needs a tier it can be written back to). The
// values a plan fetches sparsely go first: a stacked expert operand of a MoE node moves only
// the experts its tokens touch (fetch after route, routed_fetch.h: 8 of 256 a token on
// DeepSeek-V3), so the spread walks those alone while they cover the overflow, and the rest
// only for what they leave. It walks them by node: one MoE node's operands (fc1, fc2 and their
// scales), fetched after one router on as many channels of the slow link, spill together
// while the overflow lasts, exposing the largest one's transfer where spread over layers each
// exposes its own (DeepSeek-V3 int4 h100-sxm 1.61 -> 1.14 s, `hyperplan plan`
// 2026-11-29); a dense value moved whole every iteration (an embedding table
// gathered by row) is the costliest byte to put behind the slow link. What rounding or a full
// neighbour leaves over then moves earliest-used first. Spread, the slow
// tier's reads interleave with the fast tier's stream, and a staging hop issued a few layers
// ahead (layer streaming's stage lead) hides them behind it; moved earliest-first (the rule
// before 2026-11-26), the whole spill sat at the start of the iteration and its NVMe reads
// serialised with the PCIe stream. Measured (hyperplan-bench compare 2026-11-26, what
// `hyperplan plan` returns, earliest-first -> spread with staged layer streaming in the
// portfolio): Llama-3-405B prefill h100-sxm 87.1 -> 83.5 s, gh200 32.2 -> 25.6 s, a100-pcie4
// 69.8 -> 47.2 s; Llama-3-70B decode batch 16 h100-sxm 12.6 -> 9.73 s; DeepSeek-V3-sized decode
// h100-sxm 174.5 -> 161.8 s, a100-pcie4 139.2 -> 122.2 s, gh200 63.5 s both. Contenders that
// issue both hops of a fetch together gain in some of those cells and lose in others (405B
// h100-sxm layer streaming 87.1 -> 92.3 s; a100-pcie4 70.1 -> 53.1 s). A value no tier has
// room for stays in its preferred tier (the planner then reports the tier full).
// Cost: O(tiers * links) for routes; O(values log values + uses + values * tiers * hops).
// Limits: one home per value, chosen before planning from the model alone (which values stay
// on the device is the plan's choice, so which values spill is a rule, not a search). Stored
// values' copies are not counted here (the planner and the contenders reserve them as they
// place Stores).
#pragma once

#include <cstdint>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/routes.h"
#include "hyperplan/staging_reserve.h"

namespace hyperplan {

struct ValueHomes {
  // By ValueId. home_tier: a copy lives there from the run's start (kNoTier: none).
  // store_tier: where a Store sends it (kNoTier: it cannot leave the device, or it is homed).
  std::vector<TierId> home_tier;
  std::vector<TierId> store_tier;
  // By TierId: the bytes of the home copies in the tier, and of those the bytes that spilled
  // into it because their preferred tier was full.
  std::vector<int64_t> homed_bytes_per_tier;
  std::vector<int64_t> spilled_in_bytes_per_tier;
  // By TierId: the room the tier's home copies leave free (staging_reserve.h).
  std::vector<int64_t> staging_reserve_bytes_per_tier;

  bool Homed(ValueId value) const { return home_tier[value] != kNoTier; }
  bool CanLeave(ValueId value) const {
    return home_tier[value] != kNoTier || store_tier[value] != kNoTier;
  }
  // The tier a copy is fetched back from.
  TierId OffTier(ValueId value) const {
    return home_tier[value] != kNoTier ? home_tier[value] : store_tier[value];
  }
  int64_t SpilledBytes() const;
};

// Whether a value of this class that enters the run is homed (weights, KV cache, optimizer
// state); produced values are stored.
bool HomedClass(ValueClass value_class);

// The non-device tier with routes both ways and the cheapest round trip for `bytes`, or
// kNoTier when no tier has both routes.
TierId OffloadTier(const HardwareProfile& profile, const DeviceRoutes& routes, int64_t bytes);

// `persistent` (by ValueId; empty for a one-shot plan): values that persist across iterations
// are homed whatever their class.
ValueHomes DecideHomes(const Graph& graph, const HardwareProfile& profile,
                       const DeviceRoutes& routes, const std::vector<uint8_t>& persistent = {});

}  // namespace hyperplan
