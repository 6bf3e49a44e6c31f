// `--expert-stats FILE` (plan, fit, inspect): a measured or synthetic MoE routing profile
// (schemas/expert_stats.proto, JSON) applied to the model's routed nodes, so the cost model
// reads each layer's expected distinct experts from it (routing.h) instead of assuming uniform
// routing: a com.microsoft MoE/QMoE node's, or in the gather form (torch exports, core/
// expert_gather.h) every expert Gather of the layer, which share its one router.
// Each listed layer must hold exactly one MoE/QMoE node (found by the layer number of its fc1
// weight's name, layers.h) or, with no MoE node, one or more expert Gathers (by the layer
// number of the table each picks from: gate, up, down and their scales), all of one expert
// count E and one k; list one frequency per expert, each in [0, 1], summing to k within 1%.
// Graph::expert_selection is keyed by routed node name: the MoE node's, else each expert
// Gather's, all the layer's Gathers holding the same list (so their sampled routings draw the
// same experts, routing_samples.h). Any other file is refused in one line naming the file and
// the field (exit 3): a profile for another model must not silently cost this one.
// Cost: O(nodes + listed frequencies * Gathers per layer). Limits: layers are matched by weight
// names; an expert Gather is recognised once its indices' size is known (dims bound); a model
// whose experts are spelled out one node each (the dense form) has no node to apply it to.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "hyperplan/graph.h"

namespace hyperplan::cli {

void AddExpertStatsFlag(CLI::App& command, std::string& path);

// Reads `path` and fills graph.expert_selection; nothing when `path` is empty. Returns the
// number of layers applied.
int ApplyExpertStats(const std::string& path, Graph& graph);

}  // namespace hyperplan::cli
