// `--expert-stats FILE` (plan, fit, inspect): a measured or synthetic MoE routing profile
// (schemas/expert_stats.proto, JSON) applied to the model's com.microsoft MoE/QMoE nodes, so
// the cost model reads each layer's expected distinct experts from it (routing.h) instead of
// assuming uniform routing.
// Each listed layer must hold exactly one MoE/QMoE node (found by the layer number of its
// fc1 weight's name, layers.h), list one frequency per stacked expert, each in [0, 1], summing
// to the node's k within 1%. Any other file is refused in one line naming the file and the
// field (exit 3): a profile for another model must not silently cost this one.
// Cost: O(nodes + listed frequencies). Limits: layers are matched by weight names; a model
// whose experts are spelled out (the dense or gather forms) has no node to apply a profile to.
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
