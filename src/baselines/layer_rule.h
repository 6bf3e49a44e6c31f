// The layer a weight belongs to, from its name, as offload hooks group weights by module.
//
// Rule: a weight belongs to layer N when its name contains "layers.N." at its start or right
// after a '.' or '/' (N decimal digits): "model.layers.12.self_attn.q_proj.weight" (Hugging
// Face), "layers.3.attention.wq.weight" (Meta), "model.layers.7.mlp.experts.5.up_proj.weight"
// (an expert belongs to its layer). Anything else (embeddings, the final norm, the LM head,
// rotary tables, GPT-2's "h.N.") belongs to no layer: layer streaming keeps it on the device.
// Cost: O(name length). Limits: names only; a layer spelled differently is not found.
#pragma once

#include <string_view>

namespace hyperplan::baselines {

// The layer number, or -1.
int LayerOfWeight(std::string_view name);

}  // namespace hyperplan::baselines
