// Host placement: which parts of the model a plan runs on the host's CPUs (issue 30), read
// from its compute steps (PlanStep::unit), for the summaries, the report, `fit` and the
// llama.cpp flags that realise the same placement.
//
// A host step's part is named by the weights it reads: a weight of decoder layer N
// (hyperplan/layers.h, "layers.N.") is the layer's MLP when its name says so (".mlp.",
// ".feed_forward.", ".ffn.", ".block_sparse_moe.", ".experts."), its attention (".self_attn.",
// ".attention.", ".attn.", ".self_attention.") and otherwise "other" (the layer's norms). A
// weight outside every layer is the embedding when a Gather reads it, the LM head when its
// name has "lm_head", "embed_out" or is "output.weight" (or it is a tied embedding a matmul
// reads); else it is listed by name. A host step reading no weight (an activation, a
// residual add) names no part: it goes with the part whose matmuls moved.
// Cost: O(steps + node inputs + layer count). Limits: by names only, like layers.h; a layer
// spelled differently, or weights renamed by an exporter ("onnx::MatMul_123"), is counted in
// host_nodes but names no part.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan {

// Bits of HostPlacement::layer_parts.
enum HostLayerPart : uint8_t {
  kHostMlp = 1,
  kHostAttention = 2,
  kHostOtherLayerPart = 4,
};

struct HostPlacement {
  int64_t host_nodes = 0;                  // compute steps on the host
  std::map<int, uint8_t> layer_parts;      // layer number -> HostLayerPart bits, ascending
  bool lm_head = false;                    // the LM head runs on the host
  bool embedding = false;                  // the token embedding lookup runs on the host
  std::vector<std::string> other_weights;  // other weights read on the host, ascending names

  bool empty() const { return host_nodes == 0; }
};

HostPlacement FindHostPlacement(const Graph& graph, const Plan& plan);

// "MLP", "attention", "MLP and attention", "norms" (other bits only), "MLP, attention and
// norms"; "" for no bits.
std::string HostLayerPartNames(uint8_t parts);

// The names of `parts`' bits in the order of HostLayerPartNames: {"MLP", "attention"}.
std::vector<std::string> HostLayerPartList(uint8_t parts);

// "layers 0-31 MLP, LM head on the host", "layer 3 MLP and attention on the host",
// "3 nodes on the host" (host steps that name no part); "" when nothing runs on the host. Runs
// of consecutive layers with the same parts share a range; past 8 runs, the count of layers
// per parts ("40 layers: 30 MLP, 10 attention").
std::string DescribeHostPlacement(const HostPlacement& placement);

// One unit's share of a replay: its compute steps, their node times and the stalls before
// them (SimulationResult::stall_ns_per_node: a step's wait after every earlier compute step,
// of either unit, has ended, so a wait for a transfer and not for the other unit).
struct UnitTimes {
  int64_t nodes = 0;
  int64_t compute_ns = 0;
  int64_t stall_ns = 0;
};
// Indexed by ComputeUnit (0 the device, 1 the host). Steps naming a node outside the timeline
// are left out.
std::array<UnitTimes, 2> TimesPerUnit(const Plan& plan, const SimulationResult& timeline);

// By ValueId: true for a weight only host steps read (its home copy on the host tier is what
// they read; it never reaches the device).
std::vector<bool> HostOnlyValues(const Graph& graph, const Plan& plan);

}  // namespace hyperplan
