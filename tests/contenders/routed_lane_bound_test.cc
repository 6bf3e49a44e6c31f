// The host-aware bound's fetch-after-route condition (contenders/routed_lane_bound.h): the
// knapsack solved by hand, and on the generator's tiny MoE that no plan beats it.
#include "contenders/routed_lane_bound.h"

#include <string>
#include <vector>

#include "contender_support.h"
#include "contenders/host_lower_bound.h"
#include "contenders/lower_bounds.h"
#include "host_decoder.h"
#include "hyperplan/adapters/onnx_import.h"
#include "moe_plans_over_bound.h"
#include "support/generated_graph.h"

namespace hyperplan::contenders_test {
namespace {

using contenders::HostBoundInputs;
using contenders::SolveHostAwareBound;

constexpr int64_t kBytePerNs = 1'000'000'000;  // 1 byte/ns, in bytes per second

// One MoE layer on a chain: its routed experts (device 10 ns, host `host_ns`) free 1000 B on
// the host; its stacked operands are 800 B, each expert touched with chance 1/4. 1000 B forced
// into the device at 1 byte/ns; the sparse terms as AddSparseTerms makes them: Z = 3/4 x 800 =
// 600 B, so (400 B, r) and (1000 B, 4 r).
HostBoundInputs OneMoeLayer(int64_t host_ns) {
  HostBoundInputs inputs;
  inputs.parts = {{10, host_ns, 1000}};
  inputs.parts[0].routed_bytes = 800;
  inputs.parts[0].touch = 0.25;
  inputs.chain = true;
  inputs.routed_lane = true;
  inputs.into_device_bytes_per_s = kBytePerNs;
  inputs.whole_transfers = {{1000, kBytePerNs}};
  inputs.transfers = {{400, kBytePerNs}, {1000, 4 * kBytePerNs}};
  return inputs;
}

TEST_CASE("fetch after route: a dense crossing costs whole bytes, the host frees them") {
  // Host 110 ns: L(x) = 10 + 100 x, 0.1 ns per byte freed. Fetched after route the layer frees
  // 3/4 x 800 = 600 B of the link terms at t W = 200 B of lane (less the byte of rounding, 199
  // ns): 0.33 ns per byte, dearer than the host, so only the host is taken.
  // Without the condition: F >= max(400 - T, 1000 - 4 T); 10 + 0.1 (1000 - 4 T) = T gives
  // T* = 110 / 1.4 = 78.57 (there 400 - T = 321 < 686), so 79.
  HostBoundInputs inputs = OneMoeLayer(110);
  inputs.routed_lane = false;
  CHECK(SolveHostAwareBound(inputs).makespan_ns == 79);
  CHECK_FALSE(SolveHostAwareBound(inputs).routed_lane_binds);
  // With it: F >= 1000 - T at 0.1 ns a byte, 10 + 0.1 (1000 - T) = T, T* = 110 / 1.1 = 100.
  inputs.routed_lane = true;
  const auto bound = SolveHostAwareBound(inputs);
  CHECK(bound.makespan_ns == 100);
  CHECK(bound.routed_lane_binds);
}

TEST_CASE("fetch after route: the routed bytes cross on the chain, after the router") {
  // Host 1010 ns: 1 ns per byte freed. Without the condition: 10 + (400 - T) = T (there
  // 1000 - 4 T < 400 - T), T* = 205.
  HostBoundInputs inputs = OneMoeLayer(1010);
  inputs.routed_lane = false;
  CHECK(SolveHostAwareBound(inputs).makespan_ns == 205);
  // With it, the layer's hull: after route (600 B for 199 ns, 0.332 ns/B), then the host for
  // the rest (400 B for 1000 - 199 = 801 ns, 2.0025 ns/B). Need G = 1000 - T: after route
  // alone, 10 + 199/600 (1000 - T) = T gives T = 256.6 with G = 743 > 600, so the host share
  // too: 10 + 199 + 2.0025 (400 - T) = T, T* = 1010 / 3.0025 = 336.39, so 337. (Dense alone:
  // 1000 over the link; the host alone: 10 + (1000 - T) = T, 505.)
  inputs.routed_lane = true;
  const auto bound = SolveHostAwareBound(inputs);
  CHECK(bound.makespan_ns == 337);
  CHECK(bound.routed_lane_binds);
  // Nodes between the router and the MoE node may run beside the fetch: 5 ns of them come off
  // the lane, 5 + 199 + 2.0025 (400 - T) = T, T* = 1005 / 3.0025 = 334.72, so 335.
  inputs.parts[0].overlap_ns = 5;
  CHECK(SolveHostAwareBound(inputs).makespan_ns == 335);
}

TEST_CASE("fetch after route: nodes beside the fetch shorten only a layer that fetches") {
  // 300 ns may run beside the fetch (199 ns): after route the link grows by max(0, 199 - 300)
  // = 0, while resident or on the host it is not shortened (the chain counts those nodes
  // once either way). The hull: after route frees 600 B for 0 ns, then the host the other
  // 400 B for 1000 ns (2.5 ns/B). Need G = 1000 - T > 600: 10 + 2.5 (400 - T) = T, T* = 1010 /
  // 3.5 = 288.57, so 289 (without the condition 205, above). Were the 300 ns taken off every
  // placement's lane, it would be 10 - 300 + 199 + 2.0025 (400 - T) = T, 237.
  HostBoundInputs inputs = OneMoeLayer(1010);
  inputs.parts[0].overlap_ns = 300;
  const auto bound = SolveHostAwareBound(inputs);
  CHECK(bound.makespan_ns == 289);
  CHECK(bound.routed_lane_binds);
}

TEST_CASE("fetch after route: off the chain the condition does not apply") {
  // Without a chain no span orders the router, the fetch and the MoE node: the host lane H
  // alone, 1010 x, with F >= 400 - T: 1010 (400 - T) / 1000 = T, T* = 404 / 2.01 = 200.99,
  // so 201 (1000 - 4 T < 400 - T there).
  HostBoundInputs inputs = OneMoeLayer(1010);
  inputs.chain = false;
  const auto bound = SolveHostAwareBound(inputs);
  CHECK(bound.makespan_ns == 201);
  CHECK_FALSE(bound.routed_lane_binds);
}

// A decode step of a generated model (tiny-moe, or an hf config under tests/data), as the
// bench plans it: a loop with its KV cache fed back.
Graph GeneratedDecode(std::vector<std::string> source, const std::string& moe_form) {
  source.insert(source.end(), {"--form", "decode", "--moe-form", moe_form});
  return testing::GeneratedGraph(source, {{"batch", 1}, {"sequence", 1}, {"past_sequence", 4}});
}

const std::string kConfigs = std::string(HYPERPLAN_SOURCE_DIR) + "/tests/data/hf-configs/";

TEST_CASE(
    "fetch after route: tiny-moe's routed experts each get the option, and no plan beats it") {
  const Graph graph = GeneratedDecode({"--preset", "tiny-moe"}, "ort");
  const LoopSpec loop{true, FindAliases(graph, {})};
  const HardwareProfile roomy = HostUnitProfile(int64_t{1} << 40);
  const int64_t peak_bytes =
      contenders::BuildContenderContext(graph, roomy, {}, loop).baseline_peak_bytes;
  int checked = 0;
  {  // 40% of the no-offload peak; one budget: the planner alone takes seconds under ASan
    const int percent = 40;
    // A host that reads 0.25 bytes/ns, a quarter of the link: fetching a layer's routed experts
    // after route costs less lane time per byte freed than running them there.
    HardwareProfile profile = HostUnitProfile(peak_bytes * percent / 100);
    profile.host_compute.memory_bandwidth_bytes_per_s = 250'000'000;
    const auto context = contenders::BuildContenderContext(graph, profile, {}, loop);
    const int64_t budget = context.device_capacity_bytes();
    const auto device = contenders::ComputeLowerBounds(
        *context.graph, profile, context.order, context.node_time_ns, budget, context.persistent);
    const auto inputs = contenders::HostBoundInputsFor(context, device, {}, true);
    // Layers 1 and 2 are MoE: fc1 [8, 128, 64] and fc2 [8, 64, 64] float32, 393216 B stacked,
    // each expert touched by one token's top 2 of 8 with chance 1/4; the router (gate MatMul,
    // Reshape) feeds the MoE node directly, so nothing overlaps the fetch.
    const auto parts = FindHostParts(context);
    int routed_parts = 0;
    for (size_t p = 0; p < parts.size(); ++p) {
      if (parts[p].kind != HostPartKind::kRoutedExperts) continue;
      ++routed_parts;
      CHECK(inputs.parts[p].routed_bytes == 393216);
      CHECK(inputs.parts[p].touch == Approx(0.25));
      CHECK(inputs.parts[p].overlap_ns == 0);
    }
    CHECK(routed_parts == 2);
    CHECK(inputs.chain);
    CHECK(inputs.routed_lane);
    const auto bound = contenders::ComputeHostAwareBound(context, device, /*in_order=*/true);
    CHECK(bound.routed_lane_binds);  // so the plans below are checked against the new condition
    const int64_t bound_ns = bound.makespan_ns;
    // A plan meets the in-order bound for its own order (the model's, or another).
    checked += CheckMoePlansMeetBound(graph, profile, context, budget, bound_ns,
                                      /*with_layer_streaming=*/true);
  }
  CHECK(checked >= 4);  // the planner, KTransformers, the llama.cpp rules, the LRU cache
}

TEST_CASE("host-aware bound: MLA's latent cache, read after its in-place append, keeps a chain") {
  // tiny-deepseek-v3: the scores and values read the cache the Concat appends in place (loop.h),
  // not the Concat's output: the walk follows the update to them.
  const Graph graph =
      GeneratedDecode({"--from-hf-config", kConfigs + "tiny-deepseek-v3.json"}, "ort");
  const LoopSpec loop{true, FindAliases(graph, {})};
  const HardwareProfile profile = HostUnitProfile(int64_t{1} << 40);
  const auto context = contenders::BuildContenderContext(graph, profile, {}, loop);
  const auto parts = FindHostParts(context);
  int attention = 0;
  for (const HostPart& part : parts) attention += part.kind == HostPartKind::kAttention;
  CHECK(attention == 2);  // layers 1 and 2 (layer 0's is no part, as on the 61-layer model)
  const auto device = contenders::ComputeLowerBounds(
      *context.graph, profile, context.order, context.node_time_ns, 1 << 30, context.persistent);
  CHECK(contenders::HostBoundInputsFor(context, device).chain);  // in any order
}

TEST_CASE("host-aware bound: a gather-form MoE link ends where its expert bias joins") {
  // tiny-gpt-oss in the gather form: the last step of a MoE block reads an expert bias that a
  // later Add joins; the link ends at that Add.
  const Graph graph =
      GeneratedDecode({"--from-hf-config", kConfigs + "tiny-gpt-oss.json"}, "gather");
  const LoopSpec loop{true, FindAliases(graph, {})};
  const HardwareProfile profile = HostUnitProfile(int64_t{1} << 40);
  const auto context = contenders::BuildContenderContext(graph, profile, {}, loop);
  const auto device = contenders::ComputeLowerBounds(
      *context.graph, profile, context.order, context.node_time_ns, 1 << 30, context.persistent);
  CHECK(contenders::HostBoundInputsFor(context, device).chain);
}

TEST_CASE("host-aware bound: in order, a weight dequantized before its MatMul leaves the chain") {
  // attn0 (100 ns) -> a0; the MLP part: cast0 (50 ns, reads only the MLP weight), mlp0 =
  // MatMul(a0, cast0's output) (200 ns), add0 = mlp0 + the MLP bias (10 ns). cast0 does not
  // descend from attn0, so out of order there is no chain; in order it runs on the MLP's unit
  // but may start before attn0 ends, so it leaves the MLP's chain time: 200 + 10 = 210 ns.
  Graph graph;
  const ValueId h0 = testing::Tensor(graph, "h0", {1, 16});
  graph.values[h0].is_graph_input = true;
  graph.values[h0].value_class = ValueClass::kGraphInput;
  graph.inputs.push_back(h0);
  const ValueId attn_w = DecoderWeight(graph, "model.layers.0.self_attn.o_proj.weight");
  const ValueId mlp_w = DecoderWeight(graph, "model.layers.0.mlp.down_proj.weight");
  const ValueId bias = testing::Tensor(graph, "model.layers.0.mlp.down_proj.bias", {1, 16});
  graph.values[bias].is_initializer = true;
  graph.values[bias].value_class = ValueClass::kWeight;
  const ValueId a0 = testing::Tensor(graph, "a0", {1, 16});
  const ValueId w0 = testing::Tensor(graph, "w0", {16, 16});
  const ValueId m0 = testing::Tensor(graph, "m0", {1, 16});
  const ValueId h1 = testing::Tensor(graph, "h1", {1, 16});
  testing::Op(graph, "attn0", "MatMul", {h0, attn_w}, {a0});
  testing::Op(graph, "cast0", "Cast", {mlp_w}, {w0});
  testing::Op(graph, "mlp0", "MatMul", {a0, w0}, {m0});
  testing::Op(graph, "add0", "Add", {m0, bias}, {h1});
  testing::MarkOutput(graph, h1);
  const HardwareProfile profile = HostUnitProfile(int64_t{1} << 40);
  const auto context = contenders::BuildContenderContext(graph, profile, {100, 50, 200, 10});
  const auto parts = FindHostParts(context);
  REQUIRE(parts.size() == 2);
  REQUIRE(parts[1].nodes.size() == 3);  // cast0, mlp0, add0
  CHECK_FALSE(contenders::WalkChain(context, parts).chain);
  const auto in_order = contenders::WalkChain(context, parts, &context.order);
  CHECK(in_order.chain);
  CHECK(in_order.early_nodes == std::vector<NodeId>{graph.FindNode("cast0")});
  const auto device = contenders::ComputeLowerBounds(*context.graph, profile, context.order,
                                                     context.node_time_ns, 1 << 20);
  const auto inputs = contenders::HostBoundInputsFor(context, device, {}, true);
  REQUIRE(inputs.parts.size() == 2);
  CHECK(inputs.parts[1].device_ns == 260);
  CHECK(inputs.parts[1].chain_device_ns == 210);
  // Freed bytes (float32: {1,16} 64 B, {16,16} 1024 B). The attention: h0 (its alone), its
  // weight, half of a0 (the MLP reads it): 64 + 1024 + 32 = 1120. The MLP: its weight, half of
  // a0, the bias, h1 (an output): 1024 + 32 + 64 + 64 = 1184; w0 and m0, made and read by it
  // alone, live only within its steps: 1024 + 64 = 1088 freed whatever the placement.
  CHECK(inputs.parts[0].freed_bytes == 1120);
  CHECK(inputs.parts[1].freed_bytes == 1184);
  CHECK(inputs.transient_freed_bytes == 1088);
}

}  // namespace
}  // namespace hyperplan::contenders_test
