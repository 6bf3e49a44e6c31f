// The roofline cost model at unit rates: every expected time is arithmetic in the comment.
#include "hyperplan/cost.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "hyperplan/loop.h"
#include "support/tiny_graph.h"

using namespace hyperplan;
using namespace hyperplan::testing;

TEST_CASE("a matmul is memory-bound at unit rates") {
  Graph graph;
  const ValueId x = Tensor(graph, "x", {2, 3});  // 6 floats = 24 bytes
  const ValueId w = Tensor(graph, "w", {3, 4});  // 12 floats = 48 bytes
  const ValueId y = Tensor(graph, "y", {2, 4});  // 8 floats = 32 bytes
  Op(graph, "mm", "MatMul", {x, w}, {y});
  const NodeCost cost = EstimateNodeCost(graph, graph.nodes[0], UnitProfile());
  CHECK(cost.flops == 48);            // 2 * (2*4 outputs) * K=3
  CHECK(cost.bytes_accessed == 104);  // 24 + 48 + 32
  CHECK(cost.time_ns == 104);         // max(48 FLOP at 1/ns, 104 B at 1 B/ns)
}

TEST_CASE("efficiency, bandwidth and launch overhead enter the roofline") {
  Graph graph;
  const ValueId x = Tensor(graph, "x", {2, 3});
  const ValueId w = Tensor(graph, "w", {3, 4});
  const ValueId y = Tensor(graph, "y", {2, 4});
  Op(graph, "mm", "MatMul", {x, w}, {y});
  HardwareProfile profile = UnitProfile();
  profile.compute.efficiency_ppm = 500'000;                       // half of peak
  profile.compute.memory_bandwidth_bytes_per_s = 10'000'000'000;  // 10 B/ns
  profile.compute.kernel_launch_overhead_ns = 5;
  // compute: 48 FLOP / 0.5 FLOP/ns = 96 ns; memory: ceil(104 / 10) = 11 ns; + 5 launch.
  CHECK(EstimateNodeCost(graph, graph.nodes[0], profile).time_ns == 101);
}

TEST_CASE("batched matmul and gemm FLOPs") {
  Graph graph;
  const ValueId a = Tensor(graph, "a", {4, 8, 16});
  const ValueId b = Tensor(graph, "b", {4, 16, 2});
  const ValueId c = Tensor(graph, "c", {4, 8, 2});
  Op(graph, "bmm", "MatMul", {a, b}, {c});
  CHECK(NodeFlops(graph, graph.nodes[0]) == 2 * 64 * 16);  // 4*8*2 = 64 outputs, K = 16

  const ValueId ga = Tensor(graph, "ga", {16, 8});  // transA: A is K x M, K = 16
  const ValueId gb = Tensor(graph, "gb", {16, 5});
  const ValueId gc = Tensor(graph, "gc", {5});
  const ValueId gy = Tensor(graph, "gy", {8, 5});
  const NodeId gemm = Op(graph, "gemm", "Gemm", {ga, gb, gc}, {gy});
  graph.nodes[gemm].int_attributes["transA"] = 1;
  CHECK(NodeFlops(graph, graph.nodes[gemm]) == 2 * 40 * 16 + 40);  // 40 outputs, K 16, bias
}

TEST_CASE("attention FLOPs use the full key length from present_key") {
  Graph graph;
  const ValueId q = Tensor(graph, "q", {1, 8, 64}, DType::kFloat16);  // 512 elements
  const ValueId k = Tensor(graph, "k", {1, 8, 32}, DType::kFloat16);
  const ValueId v = Tensor(graph, "v", {1, 8, 32}, DType::kFloat16);
  const ValueId out = Tensor(graph, "out", {1, 8, 64}, DType::kFloat16);
  const ValueId pk = Tensor(graph, "pk", {1, 2, 24, 16}, DType::kFloat16);  // 24 keys
  const ValueId pv = Tensor(graph, "pv", {1, 2, 24, 16}, DType::kFloat16);
  Op(graph, "gqa", "GroupQueryAttention", {q, k, v}, {out, pk, pv});
  // GQA is causal: 8 new queries after 24 - 8 = 16 earlier keys attend 8 * 16 + 8 * 9 / 2 =
  // 164 (query, key) pairs; 4 FLOPs per query element (512 / 8 = 64 per query) per pair.
  CHECK(NodeFlops(graph, graph.nodes[0]) == 4 * 64 * 164);
  CHECK(ComputeDType(graph, graph.nodes[0]) == DType::kFloat16);
  Op(graph, "mha", "MultiHeadAttention", {q, k, v}, {out, pk, pv});
  // MultiHeadAttention without `unidirectional` attends every key: 4 * 512 * 24.
  CHECK(NodeFlops(graph, graph.nodes[1]) == 4 * 512 * 24);
}

TEST_CASE("views are free, elementwise ops cost one FLOP per output element") {
  Graph graph;
  const ValueId x = Tensor(graph, "x", {10});
  const ValueId y = Tensor(graph, "y", {10});
  const ValueId z = Tensor(graph, "z", {10});
  Op(graph, "reshape", "Reshape", {x}, {y});
  Op(graph, "relu", "Relu", {y}, {z});
  const auto costs = EstimateCosts(graph, UnitProfile());
  CHECK(costs[0].flops == 0);
  CHECK(costs[0].bytes_accessed == 0);
  CHECK(costs[0].time_ns == 0);
  CHECK(costs[1].flops == 10);
  CHECK(costs[1].time_ns == 80);  // 40 B in + 40 B out at 1 B/ns
}

TEST_CASE("transfer time is latency plus bytes over bandwidth, rounded up, without overflow") {
  const Link unit{0, 1, 1'000'000'000, 7, 1};
  CHECK(TransferTimeNs(unit, 100) == 107);  // 7 + 100 B at 1 B/ns
  CHECK(TransferTimeNs(unit, 0) == 7);
  const Link fast{0, 1, 3'350'000'000'000, 0, 1};  // 3.35 TB/s
  // 1e12 B / 3.35e12 B/s = 0.29850746268... s = 298507462.68 ns -> 298507463
  CHECK(TransferTimeNs(fast, 1'000'000'000'000) == 298'507'463);
}

namespace {

// A graph input / output pair for the loop rewrite (loop.h).
ValueId LoopInput(Graph& graph, const std::string& name, std::vector<int64_t> shape,
                  DType dtype = DType::kFloat16) {
  const ValueId id = Tensor(graph, name, std::move(shape), dtype);
  graph.values[id].is_graph_input = true;
  graph.inputs.push_back(id);
  return id;
}

ValueId LoopOutput(Graph& graph, const std::string& name, std::vector<int64_t> shape,
                   DType dtype = DType::kFloat16) {
  const ValueId id = Tensor(graph, name, std::move(shape), dtype);
  graph.values[id].is_graph_output = true;
  graph.outputs.push_back(id);
  return id;
}

// One GroupQueryAttention decode step over a cache of `past_rows` rows growing to
// `present_rows`: q [1, 1, 64], k and v [1, 1, 16], caches [1, 1, rows, 16], all float16.
struct DecodeStep {
  Graph graph;
  std::vector<ValueAlias> aliases;
};

DecodeStep GqaDecode(int64_t past_rows, int64_t present_rows) {
  DecodeStep step;
  Graph& g = step.graph;
  const ValueId q = Tensor(g, "q", {1, 1, 64}, DType::kFloat16);  // 128 B
  const ValueId k = Tensor(g, "k", {1, 1, 16}, DType::kFloat16);  // 32 B
  const ValueId v = Tensor(g, "v", {1, 1, 16}, DType::kFloat16);  // 32 B
  const ValueId past_k = LoopInput(g, "past_k", {1, 1, past_rows, 16});
  const ValueId past_v = LoopInput(g, "past_v", {1, 1, past_rows, 16});
  const ValueId out = Tensor(g, "out", {1, 1, 64}, DType::kFloat16);  // 128 B
  const ValueId present_k = LoopOutput(g, "present_k", {1, 1, present_rows, 16});
  const ValueId present_v = LoopOutput(g, "present_v", {1, 1, present_rows, 16});
  Op(g, "gqa", "GroupQueryAttention", {q, k, v, past_k, past_v}, {out, present_k, present_v});
  step.aliases = {{present_k, past_k}, {present_v, past_v}};
  return step;
}

}  // namespace

TEST_CASE("fused attention reads its KV cache once and writes the appended rows") {
  const DecodeStep step = GqaDecode(7, 8);  // past 7 rows = 224 B, present 8 rows = 256 B
  // q 128 + k 32 + v 32 + out 128, plus per cache one read of the past (224) and the appended
  // row (256 - 224 = 32): 320 + 2 * 256 = 832 B. (A full read of past and write of present
  // would be 320 + 2 * (224 + 256) = 1280.)
  CHECK(NodeBytes(step.graph, step.graph.nodes[0]) == 832);
  // Decode: 1 query attends all 8 keys: 4 * 64 * 8.
  CHECK(NodeFlops(step.graph, step.graph.nodes[0]) == 2048);

  // The loop graph updates the cache in place (present leaves the node; past grows to 256 B
  // with 32 B written): the same 832 B and the same 8 keys.
  const Graph loop = LoopGraph(step.graph, step.aliases);
  CHECK(loop.nodes[0].outputs.size() == 1);
  CHECK(NodeBytes(loop, loop.nodes[0]) == 832);
  CHECK(NodeFlops(loop, loop.nodes[0]) == 2048);
  // Unit rates: 832 B at 1 B/ns against 2048 FLOP at 1 FLOP/ns: compute-bound, 2048 ns.
  const NodeCost cost = EstimateCosts(loop, UnitProfile())[0];
  CHECK(cost.memory_ns == 832);
  CHECK(cost.compute_ns == 2048);
  CHECK(cost.time_ns == 2048);
}

TEST_CASE("a shared past/present KV buffer is read whole and written one new row") {
  const DecodeStep step = GqaDecode(8, 8);  // one 8-row buffer, 256 B, before and after
  // 320 B of q, k, v, out; per cache the buffer read (256) and one row of 256 / 8 = 32 B.
  CHECK(NodeBytes(step.graph, step.graph.nodes[0]) == 320 + 2 * (256 + 32));
  // On the loop graph the pair is the shared max_length buffer (loop.h): its writer updates
  // written_bytes = one row (256 / 8 = 32 B) in place, so it reads the 7 rows that stood
  // before (256 - 32 = 224) and writes the new one: 320 + 2 * (224 + 32) = 832 B. The new row's
  // K and V are already counted in k and v.
  const Graph loop = LoopGraph(step.graph, step.aliases);
  CHECK(NodeBytes(loop, loop.nodes[0]) == 320 + 2 * (224 + 32));
  // A plan's costs take FLOPs on the model (EstimateLoopCosts), where present holds the 8 rows
  // attended: 4 * 64 * 8.
  CHECK(EstimateLoopCosts(step.graph, loop, UnitProfile())[0].flops == 4 * 64 * 8);
}

TEST_CASE("an int8 KV cache is read and appended at one byte an element, scales counted") {
  // GroupQueryAttention inputs 0-4 and 12-13 (5-11 omitted, so the importer's bitmask says
  // where the scales sit): q [1, 1, 64] fp16 128 B, k and v [1, 1, 16] fp16 32 B each, caches
  // int8 [1, 1, 7 -> 8, 16] (112 B -> 128 B), k_scale and v_scale one float each, 4 B.
  Graph g;
  const ValueId q = Tensor(g, "q", {1, 1, 64}, DType::kFloat16);
  const ValueId k = Tensor(g, "k", {1, 1, 16}, DType::kFloat16);
  const ValueId v = Tensor(g, "v", {1, 1, 16}, DType::kFloat16);
  const ValueId past_k = LoopInput(g, "past_k", {1, 1, 7, 16}, DType::kInt8);
  const ValueId past_v = LoopInput(g, "past_v", {1, 1, 7, 16}, DType::kInt8);
  const ValueId k_scale = Tensor(g, "k_scale", {1});
  const ValueId v_scale = Tensor(g, "v_scale", {1});
  const ValueId out = Tensor(g, "out", {1, 1, 64}, DType::kFloat16);
  const ValueId present_k = LoopOutput(g, "present_k", {1, 1, 8, 16}, DType::kInt8);
  const ValueId present_v = LoopOutput(g, "present_v", {1, 1, 8, 16}, DType::kInt8);
  const NodeId gqa = Op(g, "gqa", "GroupQueryAttention",
                        {q, k, v, past_k, past_v, k_scale, v_scale}, {out, present_k, present_v});
  // Positions 0-4, 12 and 13: 0b11'0000'0001'1111.
  g.nodes[gqa].int_attributes["input_positions"] = (1 << 13) | (1 << 12) | 0b11111;
  // q 128 + k 32 + v 32 + out 128 + scales 4 + 4 = 328, plus per cache the past read (112) and
  // the appended row (128 - 112 = 16): 328 + 2 * 128 = 584 B. (fp16 caches would be
  // 320 + 2 * 256 = 832, as above.)
  CHECK(NodeBytes(g, g.nodes[gqa]) == 584);
  // The scales are operands, not rotary tables: the same 584 B on the loop graph, where the
  // caches are updated in place.
  const Graph loop = LoopGraph(g, {{present_k, past_k}, {present_v, past_v}});
  CHECK(NodeBytes(loop, loop.nodes[gqa]) == 584);

  // Without the bitmask the scales would sit at positions 5 and 6 (seqlens_k,
  // total_sequence_length): still operands, the same bytes.
  g.nodes[gqa].int_attributes.erase("input_positions");
  CHECK(NodeBytes(g, g.nodes[gqa]) == 584);
}

TEST_CASE("a prompt's omitted past does not shift the rotary tables") {
  // GroupQueryAttention q, k, v, "", "", seqlens_k, total, cos_cache, sin_cache (do_rotary):
  // without the bitmask the tables would sit at positions 5 and 6, and 7 and 8 would be empty.
  Graph g;
  const ValueId q = Tensor(g, "q", {1, 4, 64}, DType::kFloat16);       // 512 B
  const ValueId k = Tensor(g, "k", {1, 4, 16}, DType::kFloat16);       // 128 B
  const ValueId v = Tensor(g, "v", {1, 4, 16}, DType::kFloat16);       // 128 B
  const ValueId seqlens = Tensor(g, "seqlens_k", {1}, DType::kInt32);  // 4 B
  const ValueId total = Tensor(g, "total", {}, DType::kInt32);         // 4 B
  const ValueId cos = Tensor(g, "cos", {32, 8}, DType::kFloat16);      // 512 B, 16 B a row
  const ValueId sin = Tensor(g, "sin", {32, 8}, DType::kFloat16);      // 512 B
  const ValueId out = Tensor(g, "out", {1, 4, 64}, DType::kFloat16);   // 512 B
  const ValueId pk = Tensor(g, "pk", {1, 1, 4, 16}, DType::kFloat16);  // 128 B
  const ValueId pv = Tensor(g, "pv", {1, 1, 4, 16}, DType::kFloat16);  // 128 B
  const NodeId gqa =
      Op(g, "gqa", "GroupQueryAttention", {q, k, v, seqlens, total, cos, sin}, {out, pk, pv});
  g.nodes[gqa].int_attributes["input_positions"] = 0b111100111;  // positions 0-2, 5-8
  // Operands 512 + 128 + 128 + 4 + 4 + out 512 = 1288; no past, so each present is written
  // whole (2 * 128); the tables' rows of the 4 tokens only, 2 * 4 * 16 = 128:
  // 1288 + 256 + 128 = 1672. (Read as operands, the tables would add 1024 instead.)
  CHECK(NodeBytes(g, g.nodes[gqa]) == 1672);
}

TEST_CASE("causal prefill without a past attends about half the pairs") {
  Graph graph;
  const ValueId q = Tensor(graph, "q", {1, 16, 8});  // 16 queries of 8 elements
  const ValueId k = Tensor(graph, "k", {1, 16, 4});
  const ValueId v = Tensor(graph, "v", {1, 16, 4});
  const ValueId out = Tensor(graph, "out", {1, 16, 8});
  const ValueId pk = Tensor(graph, "pk", {1, 1, 16, 4});
  const ValueId pv = Tensor(graph, "pv", {1, 1, 16, 4});
  Op(graph, "gqa", "GroupQueryAttention", {q, k, v}, {out, pk, pv});
  // Query i of 16 sees keys 1..i: 16 * 17 / 2 = 136 pairs (of 256), 4 * 8 FLOPs each.
  CHECK(NodeFlops(graph, graph.nodes[0]) == 4 * 8 * 136);
  // No past: the present is written whole; q 512 + k 256 + v 256 + out 512 + 2 * 256.
  CHECK(NodeBytes(graph, graph.nodes[0]) == 2048);

  Graph onnx;
  const ValueId oq = Tensor(onnx, "q", {1, 2, 16, 4});  // opset 23, [B, heads, S, head_dim]
  const ValueId ok = Tensor(onnx, "k", {1, 2, 16, 4});
  const ValueId ov = Tensor(onnx, "v", {1, 2, 16, 4});
  const ValueId oy = Tensor(onnx, "y", {1, 2, 16, 4});
  const NodeId attention = Op(onnx, "attn", "Attention", {oq, ok, ov}, {oy});
  // Without is_causal: 16 * 16 pairs of 128 / 16 = 8 elements per query.
  CHECK(NodeFlops(onnx, onnx.nodes[attention]) == 4 * 8 * 256);
  onnx.nodes[attention].int_attributes["is_causal"] = 1;
  CHECK(NodeFlops(onnx, onnx.nodes[attention]) == 4 * 8 * 136);
}

TEST_CASE("an in-place append charges only the appended bytes") {
  Graph model;
  const ValueId past = LoopInput(model, "past", {1, 1, 7, 16});              // 224 B
  const ValueId row = Tensor(model, "row", {1, 1, 1, 16}, DType::kFloat16);  // 32 B
  const ValueId present = LoopOutput(model, "present", {1, 1, 8, 16});       // 256 B
  Op(model, "append", "Concat", {past, row}, {present});
  CHECK(NodeBytes(model, model.nodes[0]) == 224 + 32 + 256);  // a copy into a new buffer
  const Graph loop = LoopGraph(model, {{present, past}});
  // In place: the new row is read (32) and written after the past (written_bytes 32); the
  // past itself is not touched.
  CHECK(NodeBytes(loop, loop.nodes[0]) == 64);

  Graph optimizer;  // an overwrite in place: read the whole state and write it whole
  const ValueId w = LoopInput(optimizer, "w", {4, 16});  // 128 B
  const ValueId grad = Tensor(optimizer, "grad", {4, 16}, DType::kFloat16);
  const ValueId updated = LoopOutput(optimizer, "w.updated", {4, 16});
  Op(optimizer, "step", "Sub", {w, grad}, {updated});
  const Graph step = LoopGraph(optimizer, {{updated, w}});
  CHECK(NodeBytes(step, step.nodes[0]) == 128 + 128 + 128);  // w read, grad read, w written
  // The loop graph detached w.updated from its writer, so its FLOPs are counted on the model:
  // one per output element, 4 * 16 = 64; the bytes, 384, on the loop graph.
  const NodeCost cost = EstimateLoopCosts(optimizer, step, UnitProfile())[0];
  CHECK(cost.flops == 64);
  CHECK(cost.bytes_accessed == 384);
  CHECK(cost.time_ns == 384);  // memory-bound at 1 B/ns
}

TEST_CASE("views launch nothing; other nodes pay the launch mode's cost") {
  Graph graph;
  const ValueId x = Tensor(graph, "x", {10});
  const ValueId y = Tensor(graph, "y", {10});
  const ValueId z = Tensor(graph, "z", {10});
  Op(graph, "reshape", "Reshape", {x}, {y});
  Op(graph, "relu", "Relu", {y}, {z});
  HardwareProfile profile = UnitProfile();
  profile.compute.kernel_launch_overhead_ns = 5;
  profile.compute.graph_kernel_overhead_ns = 2;
  std::vector<NodeCost> costs = EstimateCosts(graph, profile);
  CHECK(costs[0].time_ns == 0);  // a view: no kernel, no launch
  CHECK(costs[0].launch_ns == 0);
  CHECK(costs[1].launch_ns == 5);     // eager by default
  CHECK(costs[1].time_ns == 80 + 5);  // 80 B at 1 B/ns, plus the launch
  profile.compute.launch_mode = LaunchMode::kGraph;
  costs = EstimateCosts(graph, profile);
  CHECK(costs[0].time_ns == 0);
  CHECK(costs[1].compute_ns == 10);  // 10 FLOP at 1 FLOP/ns
  CHECK(costs[1].memory_ns == 80);
  CHECK(costs[1].launch_ns == 2);  // the graph replay's per-kernel cost
  CHECK(costs[1].time_ns == 82);
}

TEST_CASE("memory_efficiency scales the bandwidth bytes move at") {
  Graph graph;
  const ValueId x = Tensor(graph, "x", {10});
  const ValueId z = Tensor(graph, "z", {10});
  Op(graph, "relu", "Relu", {x}, {z});
  HardwareProfile profile = UnitProfile();
  profile.compute.memory_efficiency_ppm = 800'000;  // 0.8 B/ns sustained
  // 80 B / 0.8 B/ns = 100 ns; compute stays 10 ns.
  CHECK(EstimateCosts(graph, profile)[0].memory_ns == 100);
  CHECK(EstimateCosts(graph, profile)[0].time_ns == 100);
}

TEST_CASE("gathers charge the rows they read, not the table") {
  Graph graph;
  const ValueId table = Tensor(graph, "table", {1000, 16});         // 64000 B
  const ValueId ids = Tensor(graph, "ids", {1, 4}, DType::kInt64);  // 32 B
  const ValueId rows = Tensor(graph, "rows", {1, 4, 16});           // 256 B
  Op(graph, "embed", "Gather", {table, ids}, {rows});
  // 256 B of rows read from the table + 32 B of indices + 256 B written.
  CHECK(NodeBytes(graph, graph.nodes[0]) == 544);
  CHECK(EstimateCosts(graph, UnitProfile())[0].time_ns == 544);
}

TEST_CASE("rotary embedding reads the cos/sin rows of the positions it rotates") {
  Graph graph;
  const ValueId x = Tensor(graph, "x", {1, 2, 32}, DType::kFloat16);            // 128 B
  const ValueId positions = Tensor(graph, "positions", {1, 2}, DType::kInt64);  // 16 B
  const ValueId cos = Tensor(graph, "cos", {100, 8}, DType::kFloat16);          // 16 B a row
  const ValueId sin = Tensor(graph, "sin", {100, 8}, DType::kFloat16);
  const ValueId y = Tensor(graph, "y", {1, 2, 32}, DType::kFloat16);  // 128 B
  const NodeId rope = Op(graph, "rope", "RotaryEmbedding", {x, positions, cos, sin}, {y});
  graph.nodes[rope].domain = "com.microsoft";
  // x 128 + positions 16 + y 128 + 2 tokens' rows of cos and sin (2 * 2 * 16 = 64).
  CHECK(NodeBytes(graph, graph.nodes[rope]) == 336);
}

TEST_CASE("scatters write their updates, in place on data nothing else reads") {
  Graph graph;
  const ValueId data = Tensor(graph, "data", {100, 16});                    // 6400 B
  const ValueId indices = Tensor(graph, "indices", {2, 1}, DType::kInt64);  // 16 B
  const ValueId updates = Tensor(graph, "updates", {2, 16});                // 128 B
  const ValueId out = Tensor(graph, "out", {100, 16});
  graph.values[data].is_graph_input = true;
  graph.inputs.push_back(data);
  Op(graph, "scatter", "ScatterND", {data, indices, updates}, {out});
  // The caller's input cannot be overwritten: copied (6400 read + 6400 written), then the
  // indices (16) and the updates read and written (2 * 128).
  CHECK(NodeBytes(graph, graph.nodes[0]) == 16 + 256 + 12800);

  Graph chained;  // data made by an earlier node and read by nobody else: updated in place
  const ValueId seed = Tensor(chained, "seed", {100, 16});
  const ValueId made = Tensor(chained, "made", {100, 16});
  const ValueId cidx = Tensor(chained, "indices", {2, 1}, DType::kInt64);
  const ValueId cupd = Tensor(chained, "updates", {2, 16});
  const ValueId cout = Tensor(chained, "out", {100, 16});
  Op(chained, "make", "Relu", {seed}, {made});
  Op(chained, "scatter", "ScatterND", {made, cidx, cupd}, {cout});
  CHECK(NodeBytes(chained, chained.nodes[1]) == 16 + 256);
}
