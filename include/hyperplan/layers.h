// Layers: which decoder layer each weight belongs to, from its name, as offload hooks group
// weights by module; and the model's layers in the order an execution order first reads them.
//
// Rule: a weight belongs to layer N when its name contains "layers.N." at its start or right
// after a '.' or '/' (N decimal digits): "model.layers.12.self_attn.q_proj.weight" (Hugging
// Face), "layers.3.attention.wq.weight" (Meta), "model.layers.7.mlp.experts.5.up_proj.weight"
// (an expert belongs to its layer). Anything else (embeddings, the final norm, the LM head,
// rotary tables, GPT-2's "h.N.") belongs to no layer: layer streaming keeps it on the device,
// and summaries list it by name.
// One grouping for every user: the layer-streaming contender (contenders/layer_streaming.h)
// streams these groups, and the plan summary (planner/layer_summary.h) reports where each
// group spends an iteration, so the two always agree on what "layer 12" is.
// Cost: O(name length) per name; FindWeightLayers is O(values + steps + uses).
// Limits: names only; a layer spelled differently is not found.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/lifetimes.h"

namespace hyperplan {

// The layer number, or -1.
int LayerOfWeight(std::string_view name);

// What a weight's name says it is part of: the one classifier the host parts (planner/
// host_parts.h) and the plan's host placement (plan/host_placement.h) share. In a layer, by the
// module right after "layers.N.": the MLP or mixture-of-experts block ("mlp", "feed_forward",
// "ffn", "block_sparse_moe", "moe", "experts", GGUF's "ffn_up"/"ffn_gate"/"ffn_down"; or
// ".experts." further on), the attention ("self_attn", "attention", "attn", "self_attention",
// GGUF's "attn_q"...), else another piece of the layer (its norms: "input_layernorm", Meta's
// "attention_norm" and "ffn_norm", GGUF's "attn_norm"). Outside layers: the LM head
// ("lm_head", GPT-NeoX's "embed_out", Meta's "output.weight"), the token embedding
// ("embed_tokens", "wte", "tok_embeddings", "embed_in", "word_embeddings"), else none (the
// final norm, rotary tables, a Reshape's shape). A tied embedding's name says embedding; the
// node reading it (a Gather or a MatMul) says which use it is.
enum class WeightPart : uint8_t {
  kNone,
  kLayerMlp,
  kLayerAttention,
  kLayerOther,
  kLmHead,
  kEmbedding,
};
WeightPart WeightPartOfName(std::string_view name);

// A maximal run of steps that read one layer's weights (a forward pass visits each layer
// once; a training step twice, forward and backward).
struct LayerVisit {
  int rank = 0;  // the layer's rank by first use
  Step first = 0;
  Step last = 0;
  std::vector<ValueId> weights;  // read during the visit, ascending ids, each once
};

struct WeightLayers {
  // By ValueId: the layer's rank by first use, or -1 (not a weight of a layer: an activation,
  // a weight named outside any layer, one of unknown or zero size, or one nothing reads).
  std::vector<int> rank_of_value;
  std::vector<int> number_of_rank;  // the N of "layers.N." for each rank
  std::vector<LayerVisit> visits;   // in step order

  int count() const { return static_cast<int>(number_of_rank.size()); }
};

// The weights (initializers of class weight, known non-zero size) of each named layer, ranked
// by the first step of `order` that reads them, and the visits of `order` to each layer.
WeightLayers FindWeightLayers(const Graph& graph, const std::vector<NodeId>& order);

}  // namespace hyperplan
