// Host parts: the pieces of a model the planner may run on the host (issue 30), and what each
// costs on either unit.
//
// A part is what llama.cpp's `-ot`/`-ngl`, KTransformers, FlexGen and ZeRO-Offload move. Weights
// are sorted into parts by name (WeightPartOfName, layers.h). The kinds:
// - kMlp "layer N MLP": every node from the first to the last step reading a weight of the
//   layer's MLP or mixture-of-experts block (".mlp.", ".feed_forward.", ".ffn", ".experts.",
//   ".block_sparse_moe."): gate, up, the activation, down; a MoE block with router and experts.
// - kRoutedExperts "layer N routed experts": a mixture-of-experts block splits in two (issue
//   31; KTransformers' boundary, SOSP 2025): its routed experts (the nodes fed by a weight named
//   ".experts.", not "shared_expert", and not fed by a shared expert: the com.microsoft
//   MoE/QMoE node, the gather form's Gathers and batched MatMuls) and the rest of the block
//   (router, shared experts, the final add; kMlp), so the experts may run where they live
//   while the small dense rest stays on the device.
// - kAttention "layer N attention": every node from the first to the last step reading a
//   weight of the layer's attention (".self_attn.", ".attention.", ".attn.",
//   ".self_attention."): the projections, rotary, the reads and the in-place append of its KV
//   cache, the scores, the output projection. With the layer's MLP: the whole layer on the CPU
//   (llama.cpp's -ngl), the norms apart. Why not the norms: a norm's weight is one hidden-size
//   vector and its input and output are the hidden state that crosses anyway (at decode a few
//   KB); keeping parts to one weight family keeps every part one span of steps.
// - kAttentionCore "layer N attention core": the nodes from the first step reading or appending
//   the layer's KV cache to the last such step or, where the attention is spelled out
//   (attention_pattern.h), to the last step of its block (the context MatMul), none reading a
//   weight of any part (FlexGen's CPU attention: the projections stay on the device; q and the
//   new K/V cross to the host, the attention output back; ended at the cache's last reader, a
//   spelled-out core would hand the device repeat_kv's widened cache instead). Only with
//   HostPartOptions::attention_cores, instead of kAttention (the two overlap). A layer's KV cache:
//   the persistent non-weight values its attention span's nodes read or write in place.
// - kOptimizer "layer N optimizer": the update of the layer's weights (ZeRO-Offload's CPU
//   Adam): the nodes writing the layer's weights or optimizer state in place, the nodes reading
//   that state, and the elementwise nodes between them and the gradients (a node whose every
//   output feeds only the update and whose every input is a scalar, a constant or of its
//   output's shape: the gradient's cast and scalings, not the backward MatMul that computes
//   it). Found by the graph, not a span: a step order interleaves it with the backward pass.
//   With HostPartOptions::embedding_readers, an update that writes a token table in place also
//   takes the table's Gather and the scatter making its gradient (planner/embedding_update.h),
//   so only the rows cross the link.
// - kLmHead, kEmbedding: the "lm_head" node and the token embedding's Gather ("embed_tokens",
//   "wte", "tok_embeddings"); one node each, so a tied embedding's Gather and LM head are two.
// Constants of no layer (a Reshape's shape, rotary tables) may be read by any part. A part is
// eligible when every node in it can run on the host: every weight it reads, and every
// persistent value it reads or updates in place (loop.h), is homed on the host compute tier;
// only kAttention/kAttentionCore (the layer's KV cache) and kOptimizer (the layer's weights
// and optimizer state) touch persistent values other than read-only weights, and those update
// their home copies in place (docs/design.md "Compute units": the device then reads them only
// through Prefetches after the update).
// Costs: the problem's device node times and the host roofline (host_cost.h) summed over the
// part; weight bytes: the distinct weights it reads; state bytes: the distinct other persistent
// values it reads or updates (KV cache, moments). Both are what the device no longer holds
// when no device node reads them.
// Cost: O(nodes + uses) plus a host roofline per node. Limits: names only, like layers.h.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/planner/problem.h"

namespace hyperplan {

enum class HostPartKind : uint8_t {
  kMlp,
  kLmHead,
  kEmbedding,
  kAttention,      // a layer's attention with its KV cache (projections included)
  kAttentionCore,  // the nodes reading and appending a layer's KV cache (FlexGen)
  kOptimizer,      // the optimizer update of a layer's weights (ZeRO-Offload)
  kRoutedExperts,  // a mixture-of-experts block's routed experts (KTransformers' boundary)
};

// "MLP", "LM head", "token embedding", "attention", "attention core", "optimizer",
// "routed experts".
std::string_view HostPartKindName(HostPartKind kind);

// Which kinds FindHostParts returns: by default the ones that do not overlap (kMlp,
// kRoutedExperts, kAttention, kOptimizer, kLmHead, kEmbedding); attention_cores swaps kAttention
// for kAttentionCore.
struct HostPartOptions {
  bool attention_cores = false;
  // The optimizer update of a token table with the table's lookup and gradient scatter
  // (planner/embedding_update.h). Off by default: ZeRO-Offload's GPU runs those, and the
  // placement search ranks the updates as they are (on a100-pcie4 its winner, the updates of
  // layers 21-31 and outside them, was not found with the wider part: 2.74 -> 3.43 s).
  bool embedding_readers = false;
};

struct HostPart {
  HostPartKind kind = HostPartKind::kMlp;
  int layer = -1;             // the N of "layers.N." for a layer's part (MLP, experts, attention,
                              // optimizer); -1 otherwise
  std::vector<NodeId> nodes;  // in the problem's order
  Step first_step = 0;
  Step last_step = 0;
  int64_t weight_bytes = 0;  // distinct weights read (not updated)
  int64_t state_bytes = 0;   // distinct other persistent values read or updated in place
  int64_t device_ns = 0;     // the problem's node times
  int64_t host_ns = 0;       // the host roofline
  std::string name;          // "layer 12 MLP", "layer 12 routed experts", "layer 3 attention", ...

  // What the device no longer holds when no device node reads them.
  int64_t device_bytes() const { return weight_bytes + state_bytes; }
};

// The eligible parts of the problem, in step order. Empty when the profile has no host unit or
// the host tier's home copies overflow it.
std::vector<HostPart> FindHostParts(const Problem& problem, const HostPartOptions& options = {});

// The node placement that runs `parts` on the host, by NodeId.
std::vector<ComputeUnit> NodeUnitsOf(const Graph& graph, const std::vector<HostPart>& parts);

// By NodeId: the index in `parts` of the part holding the node, -1 for a node in none.
std::vector<int> PartIndexOf(const Graph& graph, const std::vector<HostPart>& parts);

}  // namespace hyperplan
