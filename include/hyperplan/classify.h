// Value classification: weight, graph input/output, activation, kv_cache, optimizer_state.
//
// Structure decides first (initializer -> weight, graph input/output, else activation); then
// naming conventions of real exporters promote a value to kv_cache (past_key_values.N.key,
// present.N.value, past_key/present_value, ...) or optimizer_state (ORT training's Adam moments
// "*.exp_avg", "*.exp_avg_sq", "*_moment_1", ...); last, user rules (regex per class) override
// both, in the order given. Cost: O(values * rules) regex matches.
#pragma once

#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"

namespace hyperplan {

// The built-in naming conventions, as rules (applied before user rules).
const std::vector<ClassRule>& DefaultClassRules();

// Sets Value::value_class for every value. Throws Error(kUsage) for an invalid regex.
void ClassifyValues(Graph& graph, const std::vector<ClassRule>& user_rules);

}  // namespace hyperplan
