// Value classification: weight, graph input/output, activation, kv_cache, optimizer_state.
//
// Structure decides first (initializer -> weight, graph input/output, else activation); then
// naming conventions of real exporters promote a value to kv_cache (past_key_values.N.key,
// present.N.value, past_key/present_value, ...) or optimizer_state (ORT training's Adam moments
// "*.exp_avg", "*.exp_avg_sq", "*_moment_1", ...); last, user rules (regex per class) override
// both, in the order given. Patterns are RE2 syntax (github.com/google/re2/wiki/Syntax) and
// must match the whole name. Cost: O(values * rules) matches, each linear in the name's length
// (RE2 never backtracks, so no pattern and no name can blow up time or stack).
#pragma once

#include <string>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"

namespace hyperplan {

// The built-in naming conventions, as rules (applied before user rules).
const std::vector<ClassRule>& DefaultClassRules();

// "" when `pattern` is a valid RE2 pattern, else "invalid regular expression '<pattern>' (RE2
// syntax): <RE2's message>". The one check every reader of class rules uses (--class, the
// profile's classes section, plan files).
std::string ClassPatternError(const std::string& pattern);

// Sets Value::value_class for every value. Throws Error(kUsage) naming the rule for an invalid
// pattern.
void ClassifyValues(Graph& graph, const std::vector<ClassRule>& user_rules);

}  // namespace hyperplan
