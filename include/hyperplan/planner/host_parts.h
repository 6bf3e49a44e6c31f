// Host parts: the pieces of a model the planner may run on the host (issue 30), and what each
// costs on either unit.
//
// A part is what llama.cpp's `-ot` moves and KTransformers' placement splits by: a decoder
// layer's MLP (every node from the first to the last step reading a weight named
// "*.layers.N.mlp.*", "feed_forward", "ffn" or "block_sparse_moe" in the order: gate, up, the
// activation, down; a mixture-of-experts block with its router and experts), the LM head
// ("lm_head" weights) and the token embedding ("embed_tokens", "wte", "tok_embeddings"); the
// last two one node each, so a tied embedding's Gather and LM head are two parts. A
// mixture-of-experts block splits in two (issue 31; KTransformers' boundary, SOSP 2025): its
// routed experts (the nodes fed by a weight named ".experts.", not "shared_expert", and not
// fed by a shared expert: the com.microsoft MoE/QMoE node, the gather form's Gathers and
// batched MatMuls) and the rest of the block (router, shared experts, the final add), so the
// experts may run where they live while the small dense rest stays on the device. Constants
// of no layer (a Reshape's shape, rotary tables) may be read by any part. A part is
// eligible when every weight it reads is homed on the host compute tier and not written in
// place, and it writes no persistent value (loop.h): a host step writing persistent state is
// not planned yet (docs/design.md "Compute units").
// Costs: the problem's device node times and the host roofline (host_cost.h) summed over the
// part; weight bytes: the distinct weights it reads (what the device no longer holds when no
// device node reads them).
// Cost: O(nodes + uses) plus a host roofline per node. Limits: names only, like layers.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/planner/problem.h"

namespace hyperplan {

enum class HostPartKind : uint8_t { kMlp, kLmHead, kEmbedding, kRoutedExperts };

struct HostPart {
  HostPartKind kind = HostPartKind::kMlp;
  int layer = -1;             // the N of "layers.N." for an MLP or experts; -1 otherwise
  std::vector<NodeId> nodes;  // in the problem's order
  Step first_step = 0;
  Step last_step = 0;
  int64_t weight_bytes = 0;  // distinct weights read
  int64_t device_ns = 0;     // the problem's node times
  int64_t host_ns = 0;       // the host roofline
  std::string name;  // "layer 12 MLP", "layer 12 routed experts", "LM head", "token embedding"
};

// The eligible parts of the problem, in step order. Empty when the profile has no host unit or
// the host tier's home copies overflow it.
std::vector<HostPart> FindHostParts(const Problem& problem);

// The node placement that runs `parts` on the host, by NodeId.
std::vector<ComputeUnit> NodeUnitsOf(const Graph& graph, const std::vector<HostPart>& parts);

}  // namespace hyperplan
