// A layer's attention core (host_parts.h, FlexGen's CPU attention) on a spelled-out
// grouped-query attention: the core runs through the block's context MatMul, so the cache
// widened by repeat_kv never leaves the host; only the query goes in and the context comes back.
// Shapes: 4 query heads over 2 KV heads of size 8, one new token over 15 cached (fp16), as
// tests/core/attention_pattern_test.cc builds them, with the layer's projection weights named
// as the generator names them so the layer's parts are found.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "hyperplan/attention_pattern.h"
#include "hyperplan/loop.h"
#include "hyperplan/planner/host_parts.h"
#include "hyperplan/planner/problem.h"
#include "planner_support.h"
#include "support/tiny_graph.h"

namespace {

using namespace hyperplan;
namespace tiny = hyperplan::testing;

constexpr DType kHalf = DType::kFloat16;
constexpr int64_t kPast = 15;
constexpr int64_t kKeys = kPast + 1;

ValueId Half(Graph& graph, const std::string& name, std::vector<int64_t> shape) {
  return tiny::Tensor(graph, name, std::move(shape), kHalf);
}

ValueId Projection(Graph& graph, const std::string& name, ValueId x, std::vector<int64_t> shape) {
  const ValueId weight = tiny::Weight(graph, "model.layers.0.self_attn." + name + ".weight", 64);
  const ValueId out = Half(graph, name + "_out", std::move(shape));
  tiny::Op(graph, name, "Sin", {x, weight}, {out});
  return out;
}

// past (a KV cache input) ++ the new row -> the present, a graph output (optimum's names).
ValueId Present(Graph& graph, const std::string& side, ValueId fresh) {
  const ValueId past = Half(graph, "past_key_values.0." + side, {1, 2, kPast, 8});
  graph.values[past].is_graph_input = true;
  graph.values[past].value_class = ValueClass::kKvCache;
  graph.inputs.push_back(past);
  const ValueId present = Half(graph, "present.0." + side, {1, 2, kKeys, 8});
  tiny::Op(graph, side + "_cache", "Concat", {past, fresh}, {present});
  tiny::MarkOutput(graph, present);
  graph.values[present].value_class = ValueClass::kKvCache;
  return present;
}

// repeat_kv: [1,2,L,8] -> [1,L,2,8] -> [1,L,2,1,8] -> [1,L,2,2,8] -> [1,L,4,8] -> heads first.
ValueId RepeatKv(Graph& graph, const std::string& side, ValueId cache, bool transposed) {
  const ValueId by_token = Half(graph, side + "_t", {1, kKeys, 2, 8});
  const ValueId widened = Half(graph, side + "_u", {1, kKeys, 2, 1, 8});
  const ValueId expanded = Half(graph, side + "_e", {1, kKeys, 2, 2, 8});
  const ValueId merged = Half(graph, side + "_r", {1, kKeys, 4, 8});
  const ValueId heads = transposed ? Half(graph, side + "_h", {1, 4, 8, kKeys})
                                   : Half(graph, side + "_h", {1, 4, kKeys, 8});
  tiny::Op(graph, side + "/Transpose", "Transpose", {cache}, {by_token});
  tiny::Op(graph, side + "/Unsqueeze", "Unsqueeze", {by_token}, {widened});
  tiny::Op(graph, side + "/Expand", "Expand", {widened}, {expanded});
  tiny::Op(graph, side + "/Reshape", "Reshape", {expanded}, {merged});
  tiny::Op(graph, side + "/Transpose_1", "Transpose", {merged}, {heads});
  return heads;
}

// x -> q, k, v projections; the present K/V; repeat_kv; MatMul, scale, mask, Softmax, MatMul;
// the output projection to the graph output.
Graph DecodeAttention() {
  Graph graph;
  const ValueId x = Half(graph, "x", {1, 1, 8});
  graph.values[x].is_graph_input = true;
  graph.values[x].value_class = ValueClass::kGraphInput;
  graph.inputs.push_back(x);
  const ValueId query = Projection(graph, "q_proj", x, {1, 4, 1, 8});
  const ValueId new_key = Projection(graph, "k_proj", x, {1, 2, 1, 8});
  const ValueId new_value = Projection(graph, "v_proj", x, {1, 2, 1, 8});
  const ValueId key = Present(graph, "key", new_key);
  const ValueId value = Present(graph, "value", new_value);
  const ValueId keys_t = RepeatKv(graph, "k", key, true);
  const ValueId values_r = RepeatKv(graph, "v", value, false);
  const ValueId scores = Half(graph, "scores", {1, 4, 1, kKeys});
  tiny::Op(graph, "qk/MatMul", "MatMul", {query, keys_t}, {scores});
  const ValueId scale = Half(graph, "scale", {});
  graph.values[scale].is_initializer = true;
  graph.values[scale].value_class = ValueClass::kWeight;  // a constant of no layer
  const ValueId scaled = Half(graph, "scaled", {1, 4, 1, kKeys});
  tiny::Op(graph, "qk/Mul", "Mul", {scores, scale}, {scaled});
  const ValueId probabilities = Half(graph, "probs", {1, 4, 1, kKeys});
  tiny::Op(graph, "Softmax", "Softmax", {scaled}, {probabilities});
  const ValueId context = Half(graph, "context", {1, 4, 1, 8});
  tiny::Op(graph, "pv/MatMul", "MatMul", {probabilities, values_r}, {context});
  tiny::MarkOutput(graph, Projection(graph, "o_proj", context, {1, 1, 32}));
  return graph;
}

PlanOptions LoopOf(const Graph& model) {
  PlanOptions options;
  options.aliases = FindAliases(model, {});
  return options;
}

std::vector<HostPart> Cores(const Problem& problem) {
  HostPartOptions options;
  options.attention_cores = true;
  std::vector<HostPart> parts = FindHostParts(problem, options);
  std::erase_if(parts, [](const HostPart& p) { return p.kind != HostPartKind::kAttentionCore; });
  return parts;
}

}  // namespace

TEST_CASE("attention core: a spelled-out block runs on the host through its context MatMul",
          "[planner][host]") {
  const Graph model = DecodeAttention();
  const HardwareProfile profile = planner_test::HalfFlopHostProfile();
  const Problem problem = BuildProblem(model, profile, LoopOf(model));
  const std::vector<HostPart> cores = Cores(problem);
  REQUIRE(cores.size() == 1);
  const HostPart& core = cores[0];
  const Graph& graph = *problem.graph;
  // The cache's own readers end at v/Transpose (repeat_kv's first op); the core runs on to
  // pv/MatMul: both Concats, 2 x 5 repeat_kv ops, MatMul, Mul, Softmax, MatMul = 16 nodes,
  // the attention block's members (FindAttentionBlocks), none of the four projections.
  std::vector<NodeId> members = FindAttentionBlocks(graph).at(0).members;
  std::vector<NodeId> nodes = core.nodes;
  std::sort(nodes.begin(), nodes.end());
  CHECK(nodes == members);
  CHECK(nodes.size() == 16);
  CHECK(core.weight_bytes == 2);  // the scale, an fp16 scalar any part may read
  // The two cache buffers at the present's size: 2 KV heads x 16 keys x 8 x 2 B = 512 B each.
  CHECK(core.state_bytes == 1024);
  SECTION("planned on the host, only the query and the context cross") {
    Problem placed = PlaceUnits(problem, NodeUnitsOf(graph, cores));
    const PlanResult result = PlanOffload(placed, LoopOf(model));
    const VerifyResult verdict = VerifyPlan(model, profile, result.plan, result.evaluation);
    INFO(verdict.message);
    REQUIRE(verdict.ok);
    // The device has room for the four projection weights, so the loop keeps them resident.
    // Into the host: q (4 heads x 8 x 2 B = 64 B) and the new K and V rows (2 x 8 x 2 B =
    // 32 B each): 128 B stored; back: the context (64 B). The widened K^T and V (4 x 16 x 8 x
    // 2 B = 1024 B each) stay on the host: 192 B in all (a core ending at v/Transpose sent
    // both, 2048 B more).
    CHECK(result.evaluation.timeline.total_bytes_moved() == 192);
  }
}
