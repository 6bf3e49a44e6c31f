// Loops: a model run as one iteration of a loop, with state updated in place.
//
// LLM work repeats (a decode step per token, a training step per batch), and real runtimes
// update some state in place: the KV cache append writes present.N into past.N's buffer, and an
// optimizer step overwrites parameters and moments. The graph cannot say so, so an alias pair
// {out_value, in_value} says it: the graph output `out_value` is, next iteration, the graph
// input (or initializer) `in_value`, and its producer writes it into `in_value`'s buffer.
//
// FindLoopState pairs outputs with inputs by user rules (`--alias OUT=IN`: RE2 full-match on
// the output name, IN a rewrite template with \1..\9), then by exporter conventions, each a
// named rule (kConventions in loop.cc; the first whose input exists wins):
//   optimum / ort-genai kv      present.N.key            <- past_key_values.N.key
//   encoder-decoder self kv     present.N.decoder.key    <- past_key_values.N.decoder.key
//   ort whisper self kv         present_key_self_N       <- past_key_self_N
//   split kv                    present_key_N            <- past_key_N
//   packed kv                   present_N / present.N    <- past_N / past.N
//   conv / ssm / recurrent      present_conv.N           <- past_conv.N (also _ssm, _recurrent)
//   optimizer update            X.updated[.moment]       <- X[.moment]
//   present prefix              presentREST              <- past_key_valuesREST, then pastREST
// and it names the loop state no output rewrites: a cross-attention cache
// (past_key_values.N.encoder.key, past_key_cross_N), the encoder's K/V, computed once per
// sequence and read by every step. Such an input persists across iterations like a weight (it
// is not reloaded per step), and an output of the cross naming (present.N.encoder.key,
// present_key_cross_N: a first step's or a merged decoder's) is never paired with it.
// The shared max_length buffer: an ORT attention kernel (GroupQueryAttention, MultiHeadAttention,
// DecoderMaskedMultiHeadAttention, packed Attention) whose present has past's shape (ORT GenAI's
// past_present_share_buffer) appends its query's S rows into one buffer of L rows, so the
// pair's written bytes are S/L of the buffer, not all of it.
// LoopGraph then rewrites the graph the way one iteration sees it: each pair is one
// buffer owned outside the run (the input), of the larger of the two sizes, that the writer
// node reads and updates in place (`Value::written_by`, `Value::written_bytes`); readers of the
// output read the input instead, and the output leaves the graph (no producer, no bytes, not
// an output). Node ids and value ids are unchanged, so a plan made on the loop graph names the
// model's own nodes and values. The bytes an in-place write changes: the growth when the
// output is larger (an append), the new rows of a shared buffer, else the whole output (an
// overwrite).
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

// A pair and the rule that found it: "--alias OUT=IN" or a convention's name.
struct FoundAlias {
  ValueAlias alias;
  std::string rule;
};

// An input read every iteration and written by none (a cross-attention cache).
struct ReadOnlyState {
  ValueId value = kNoValue;
  std::string rule;
};

struct LoopState {
  std::vector<FoundAlias> pairs;         // ascending by out_value
  std::vector<ReadOnlyState> read_only;  // ascending by value
};

// The pairs (as FindAliases) and the read-only loop state, each with its rule, for the summary.
LoopState FindLoopState(const Graph& graph, const std::vector<AliasRule>& user_rules);

// Inputs that persist across iterations without a writer: graph inputs (no initializer, no
// producer, read by a node, of known size) named as cross-attention caches and in no pair.
std::vector<ReadOnlyState> ReadOnlyLoopState(const Graph& graph,
                                             const std::vector<ValueAlias>& aliases);

// The rows a shared max_length buffer's writer appends, as bytes (see above), or 0 when the
// pair is not one: the writer is one of those kernels and its output has the input's shape.
int64_t SharedBufferWrittenBytes(const Graph& graph, const ValueAlias& alias);

// Pairs found by user rules, then conventions, ascending by out_value. An output that a rule
// names but whose input does not exist is skipped for conventions and an Error(kUsage) for
// user rules (a typo must not silently alias nothing). Throws Error(kUsage) for a bad regex.
std::vector<ValueAlias> FindAliases(const Graph& graph, const std::vector<AliasRule>& user_rules);

// The graph one iteration of the loop sees (see above). Throws Error(kUsage) when a pair is not
// an output with a producer and an input without one, when a value is in two pairs, or when
// the input is read after its writer in the model's order.
Graph LoopGraph(const Graph& graph, const std::vector<ValueAlias>& aliases);

// Values that persist across iterations: initializers, the inputs of alias pairs and the
// read-only loop state (ReadOnlyLoopState), with a known non-zero size. By ValueId.
std::vector<uint8_t> PersistentValues(const Graph& loop_graph,
                                      const std::vector<ValueAlias>& aliases);

}  // namespace hyperplan
