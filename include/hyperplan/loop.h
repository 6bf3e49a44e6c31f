// Loops: a model run as one iteration of a loop, with state updated in place.
//
// LLM work repeats (a decode step per token, a training step per batch), and real runtimes
// update some state in place: the KV cache append writes present.N into past.N's buffer, and an
// optimizer step overwrites parameters and moments. The graph cannot say so, so an alias pair
// {out_value, in_value} says it: the graph output `out_value` is, next iteration, the graph
// input (or initializer) `in_value`, and its producer writes it into `in_value`'s buffer.
//
// FindAliases pairs outputs with inputs by exporter conventions (the same families
// classification knows: present.N.key <- past_key_values.N.key, present_N <- past_N,
// present_key_N <- past_key_N, X.updated[.moment] <- X[.moment]) and by user rules
// (`--alias OUT=IN`: RE2 full-match on the output name, IN a rewrite template with \1..\9), user
// rules first. LoopGraph then rewrites the graph the way one iteration sees it: each pair is one
// buffer owned outside the run (the input), of the larger of the two sizes, that the writer
// node reads and updates in place (`Value::written_by`, `Value::written_bytes`); readers of the
// output read the input instead, and the output leaves the graph (no producer, no bytes, not
// an output). Node ids and value ids are unchanged, so a plan made on the loop graph names the
// model's own nodes and values. The bytes an in-place write changes: the growth when the
// output is larger (an append), else the whole output (an overwrite).
// Cost: O(values * rules) matches for FindAliases, O(nodes + values + uses) for LoopGraph.
// Limits: a pair is legal only when nothing reads the input after the writer runs in the
// model's order (checked: Error(kUsage) naming the pair); an alias never spans two outputs.
#pragma once

#include <string>
#include <vector>

#include "hyperplan/graph.h"

namespace hyperplan {

struct ValueAlias {
  ValueId out_value = kNoValue;  // graph output produced this iteration
  ValueId in_value = kNoValue;   // graph input or initializer it becomes next iteration
};

// How a plan treats the run: one iteration of a loop whose outputs feed back through
// `aliases`, or one run from a free preload (periodic false, no aliases).
struct LoopSpec {
  bool periodic = false;
  std::vector<ValueAlias> aliases;
};

// A user alias rule: outputs whose whole name matches `out_regex` (RE2) alias the input named
// by `in_template` with \1..\9 replaced by the match's groups.
struct AliasRule {
  std::string out_regex;
  std::string in_template;
};

// Parses "OUT=IN" (the CLI's --alias). Throws Error(kUsage) naming the text when malformed.
AliasRule ParseAliasRule(const std::string& text);

// Pairs found by user rules, then conventions, ascending by out_value. An output that a rule
// names but whose input does not exist is skipped for conventions and an Error(kUsage) for
// user rules (a typo must not silently alias nothing). Throws Error(kUsage) for a bad regex.
std::vector<ValueAlias> FindAliases(const Graph& graph, const std::vector<AliasRule>& user_rules);

// The graph one iteration of the loop sees (see above). Throws Error(kUsage) when a pair is not
// an output with a producer and an input without one, when a value is in two pairs, or when
// the input is read after its writer in the model's order.
Graph LoopGraph(const Graph& graph, const std::vector<ValueAlias>& aliases);

// Values that persist across iterations: initializers and the inputs of alias pairs, with a
// known non-zero size. By ValueId.
std::vector<uint8_t> PersistentValues(const Graph& loop_graph,
                                      const std::vector<ValueAlias>& aliases);

}  // namespace hyperplan
