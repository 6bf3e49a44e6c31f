// Loop state by exporter convention (loop.h): one test per convention, each on a graph named as
// that exporter names it, checking the pair found, the rule reported, the written bytes and,
// for cross-attention caches, that the input persists with no writer.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "hyperplan/classify.h"
#include "hyperplan/loop.h"

using namespace hyperplan;

namespace {

ValueId NewValue(Graph& graph, const std::string& name, std::vector<int64_t> shape,
                 int64_t element_bytes = 2) {
  Value value;
  value.name = name;
  value.dtype = DType::kFloat16;
  value.size_known = true;
  value.bytes = element_bytes;
  for (int64_t dim : shape) value.bytes *= dim;
  value.shape = std::move(shape);
  return AddValue(graph, std::move(value));
}

ValueId GraphInput(Graph& graph, const std::string& name, std::vector<int64_t> shape) {
  const ValueId id = NewValue(graph, name, std::move(shape));
  graph.values[id].is_graph_input = true;
  graph.inputs.push_back(id);
  return id;
}

ValueId Op(Graph& graph, const std::string& op_type, std::vector<ValueId> inputs,
           const std::string& output, std::vector<int64_t> shape, bool graph_output = false) {
  Node node;
  node.name = output + "/node";
  node.op_type = op_type;
  node.inputs = std::move(inputs);
  node.outputs = {NewValue(graph, output, std::move(shape))};
  const ValueId id = node.outputs[0];
  AddNode(graph, std::move(node));
  if (graph_output) {
    graph.values[id].is_graph_output = true;
    graph.outputs.push_back(id);
  }
  return id;
}

// The cache shape `lead` + [rows, 4], fp16; `lead` [1, 2] (batch 1, 2 heads) makes a row
// 1 x 2 x 4 x 2 B = 16 B.
std::vector<int64_t> CacheShape(std::vector<int64_t> lead, int64_t rows) {
  lead.push_back(rows);
  lead.push_back(4);
  return lead;
}

// One layer's step: x -> a node that reads `past` and writes `present` (both graph-level).
struct Step {
  Graph graph;
  ValueId past = kNoValue, present = kNoValue;
  Step(const std::string& past_name, const std::string& present_name, int64_t past_rows,
       int64_t present_rows, const std::string& op_type = "Concat",
       const std::vector<int64_t>& lead = {1, 2}) {
    const ValueId x = GraphInput(graph, "input_ids", {1, 1});
    past = GraphInput(graph, past_name, CacheShape(lead, past_rows));
    present = Op(graph, op_type, {x, past}, present_name, CacheShape(lead, present_rows), true);
    Op(graph, "MatMul", {present}, "logits", {1, 1, 8}, true);
  }
};

// The loop graph's buffer for `step.past`: the bytes its writer changes each iteration and the
// bytes it holds.
void CheckLoopBytes(const Step& step, int64_t written_bytes, int64_t bytes) {
  const Graph loop = LoopGraph(step.graph, FindAliases(step.graph, {}));
  CHECK(loop.values[step.past].written_by != kNoNode);
  CHECK(loop.values[step.past].written_bytes == written_bytes);
  CHECK(loop.values[step.past].bytes == bytes);
}

void CheckOnePair(const Step& step, const std::string& rule) {
  const LoopState state = FindLoopState(step.graph, {});
  REQUIRE(state.pairs.size() == 1);
  CHECK(state.pairs[0].alias.out_value == step.present);
  CHECK(state.pairs[0].alias.in_value == step.past);
  CHECK(state.pairs[0].rule == rule);
  CHECK(state.read_only.empty());
}

}  // namespace

TEST_CASE("loop conventions: Optimum and ORT GenAI present.N.key <- past_key_values.N.key") {
  const Step step("past_key_values.0.key", "present.0.key", 3, 4);
  CheckOnePair(step, "optimum / ort-genai kv");
  // An append of one row: 4 rows x 16 B - 3 rows x 16 B = 16 B written.
  const Graph loop = LoopGraph(step.graph, FindAliases(step.graph, {}));
  CHECK(loop.values[step.past].written_bytes == 16);
  CHECK(loop.values[step.past].bytes == 64);
}

TEST_CASE("loop conventions: Optimum encoder-decoder self cache present.N.decoder.key") {
  const Step step("past_key_values.1.decoder.value", "present.1.decoder.value", 3, 4);
  CheckOnePair(step, "encoder-decoder self kv (optimum)");
  // One row appended: 4 x 16 B - 3 x 16 B = 16 B written; the buffer holds 4 x 16 B = 64 B.
  CheckLoopBytes(step, 16, 64);
}

TEST_CASE("loop conventions: ORT whisper self cache present_key_self_N <- past_key_self_N") {
  const Step step("past_key_self_2", "present_key_self_2", 7, 8);
  CheckOnePair(step, "encoder-decoder self kv (ort whisper)");
  // 7 rows to 8: 8 x 16 B - 7 x 16 B = 16 B written; 8 x 16 B = 128 B held.
  CheckLoopBytes(step, 16, 128);
}

TEST_CASE("loop conventions: split present_value_N <- past_value_N") {
  const Step step("past_value_0", "present_value_0", 3, 5);
  CheckOnePair(step, "split kv");
  // Two rows appended (a two-token step): 5 x 16 B - 3 x 16 B = 32 B; 5 x 16 B = 80 B held.
  CheckLoopBytes(step, 32, 80);
}

TEST_CASE("loop conventions: packed present_N <- past_N (ORT's GPT-2 export)") {
  // K and V packed in one [2, batch 1, 2 heads, rows, 4] fp16 cache: a row is 2 x 1 x 2 x 4 x
  // 2 B = 32 B, so 3 rows to 4 writes 4 x 32 B - 3 x 32 B = 32 B and holds 4 x 32 B = 128 B.
  const Step step("past_5", "present_5", 3, 4, "Concat", {2, 1, 2});
  CheckOnePair(step, "packed kv");
  CheckLoopBytes(step, 32, 128);
}

TEST_CASE("loop conventions: hybrid conv, ssm and recurrent state") {
  CheckOnePair(Step("past_conv.0", "present_conv.0", 3, 3), "conv / ssm / recurrent state");
  CheckOnePair(Step("past_ssm.1", "present_ssm.1", 3, 3), "conv / ssm / recurrent state");
  CheckOnePair(Step("past_recurrent.2", "present_recurrent.2", 3, 3),
               "conv / ssm / recurrent state");
  const Step conv("past_conv_states.0", "present_conv_states.0", 3, 3);
  CheckOnePair(conv, "conv / ssm / recurrent state");
  // A state of fixed size is overwritten whole: 3 rows x 16 B = 48 B written.
  const Graph loop = LoopGraph(conv.graph, FindAliases(conv.graph, {}));
  CHECK(loop.values[conv.past].written_bytes == 48);
}

TEST_CASE("loop conventions: a user --alias wins and is reported as such") {
  const Step step("cache_in_0", "cache_out_0", 3, 4);
  CHECK(FindLoopState(step.graph, {}).pairs.empty());
  const LoopState state =
      FindLoopState(step.graph, {ParseAliasRule(R"(cache_out_(\d+)=cache_in_\1)")});
  REQUIRE(state.pairs.size() == 1);
  CHECK(state.pairs[0].rule == "--alias");
}

TEST_CASE("loop conventions: GroupQueryAttention's shared max_length buffer writes new rows") {
  // past and present both [1, 2, 8, 4] fp16 (8 rows of 16 B = 128 B); the query [1, 1, 8]
  // brings S = 1 row: 128 / 8 * 1 = 16 B written, not the whole 128 B buffer.
  Graph graph;
  const ValueId query = GraphInput(graph, "input_ids", {1, 1, 8});
  const ValueId past = GraphInput(graph, "past_key_values.0.key", {1, 2, 8, 4});
  const ValueId present =
      Op(graph, "GroupQueryAttention", {query, past}, "present.0.key", {1, 2, 8, 4}, true);
  const LoopState state = FindLoopState(graph, {});
  REQUIRE(state.pairs.size() == 1);
  CHECK(state.pairs[0].alias.out_value == present);
  CHECK(state.pairs[0].rule == "optimum / ort-genai kv, one shared max_length buffer");
  CHECK(SharedBufferWrittenBytes(graph, state.pairs[0].alias) == 16);
  const Graph loop = LoopGraph(graph, FindAliases(graph, {}));
  CHECK(loop.values[past].written_bytes == 16);
  CHECK(loop.values[past].bytes == 128);
  // ORT's packed Attention with a shared buffer: past/present [2, 1, 2, 8, 4] fp16 = 256 B,
  // the input [1, 2, 8] brings 2 rows of the 8: 256 / 8 * 2 = 64 B.
  Graph packed;
  const ValueId input = GraphInput(packed, "input", {1, 2, 8});
  const ValueId packed_past = GraphInput(packed, "past_0", {2, 1, 2, 8, 4});
  Op(packed, "Attention", {input, packed_past}, "present_0", {2, 1, 2, 8, 4}, true);
  const LoopState packed_state = FindLoopState(packed, {});
  REQUIRE(packed_state.pairs.size() == 1);
  CHECK(packed_state.pairs[0].rule == "packed kv, one shared max_length buffer");
  CHECK(LoopGraph(packed, FindAliases(packed, {})).values[packed_past].written_bytes == 64);
  // The same shapes under another op are an overwrite: all 128 B.
  const Step concat("past_key_values.0.key", "present.0.key", 8, 8);
  CHECK(LoopGraph(concat.graph, FindAliases(concat.graph, {})).values[concat.past].written_bytes ==
        128);
}

TEST_CASE("loop conventions: cross-attention caches are read-only loop state, never paired") {
  // A Whisper decoder step as ORT exports it: self past/present, cross past only.
  Graph graph;
  const ValueId x = GraphInput(graph, "input_ids", {1, 1});
  const ValueId self_past = GraphInput(graph, "past_key_self_0", {1, 2, 3, 4});
  const ValueId cross = GraphInput(graph, "past_key_cross_0", {1, 2, 6, 4});
  const ValueId optimum_cross = GraphInput(graph, "past_key_values.0.encoder.key", {1, 2, 6, 4});
  const ValueId self_present =
      Op(graph, "Concat", {x, self_past}, "present_key_self_0", {1, 2, 4, 4}, true);
  // A merged decoder's cross output, passed through: not paired with the cross input.
  Op(graph, "Identity", {cross}, "present_key_cross_0", {1, 2, 6, 4}, true);
  Op(graph, "MatMul", {self_present, cross, optimum_cross}, "logits", {1, 1, 8}, true);
  const LoopState state = FindLoopState(graph, {});
  REQUIRE(state.pairs.size() == 1);
  CHECK(state.pairs[0].alias.in_value == self_past);
  REQUIRE(state.read_only.size() == 2);
  CHECK(state.read_only[0].value == cross);
  CHECK(state.read_only[1].value == optimum_cross);
  CHECK(state.read_only[0].rule == "cross-attention cache (read-only)");
  // No node writes a cross cache: 0 B written per iteration; it holds 1 x 2 x 6 x 4 x 2 B = 96 B.
  const Graph loop = LoopGraph(graph, FindAliases(graph, {}));
  for (ValueId cross_cache : {cross, optimum_cross}) {
    CHECK(loop.values[cross_cache].written_by == kNoNode);
    CHECK(loop.values[cross_cache].written_bytes == 0);
    CHECK(loop.values[cross_cache].bytes == 96);
  }
  // Both persist across iterations like weights, with the self cache; input_ids does not.
  const std::vector<ValueAlias> aliases = FindAliases(graph, {});
  const std::vector<uint8_t> persistent = PersistentValues(loop, aliases);
  CHECK(persistent[cross] == 1);
  CHECK(persistent[optimum_cross] == 1);
  CHECK(persistent[self_past] == 1);
  CHECK(persistent[x] == 0);
}

TEST_CASE("loop conventions: classification names every convention's values kv_cache") {
  Graph graph;
  for (const char* name :
       {"past_key_values.0.decoder.key", "present.0.encoder.value", "past_key_self_1",
        "present_value_cross_1", "past_conv.2", "present_ssm.3", "past_recurrent_states.4"}) {
    GraphInput(graph, name, {1});
  }
  const ValueId ids = GraphInput(graph, "input_ids", {1});
  ClassifyValues(graph, {});
  for (const Value& value : graph.values) {
    if (value.name == "input_ids") continue;
    INFO(value.name);
    CHECK(value.value_class == ValueClass::kKvCache);
  }
  CHECK(graph.values[ids].value_class == ValueClass::kGraphInput);
}
