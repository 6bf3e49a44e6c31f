// The host-aware bound's fetch-after-route condition on the gather form (routed_lane_bound.h):
// a layer's expert Gathers of one router are its routed nodes, their tables its routed bytes,
// and what may run beside their fetches the block's nodes before the last Gather; on the
// generator's tiny MoE, by hand, and no plan beats the bound.
#include <string>
#include <vector>

#include "contender_support.h"
#include "contenders/host_lower_bound.h"
#include "contenders/lower_bounds.h"
#include "contenders/routed_lane_bound.h"
#include "host_decoder.h"
#include "moe_plans_over_bound.h"
#include "support/generated_graph.h"

namespace hyperplan::contenders_test {
namespace {

// tiny-moe's decode step in the gather form, as the bench plans it (a loop, its KV cache fed
// back).
Graph TinyMoeGatherDecode() {
  return testing::GeneratedGraph(
      {"--preset", "tiny-moe", "--form", "decode", "--moe-form", "gather"},
      {{"batch", 1}, {"sequence", 1}, {"past_sequence", 4}});
}

TEST_CASE("fetch after route: the gather form's Gathers of one router are its layer's option") {
  const Graph graph = TinyMoeGatherDecode();
  const LoopSpec loop{true, FindAliases(graph, {})};
  const HardwareProfile profile = HostUnitProfile(int64_t{1} << 40);
  const auto context = contenders::BuildContenderContext(graph, profile, {}, loop);
  const auto device = contenders::ComputeLowerBounds(
      *context.graph, profile, context.order, context.node_time_ns, 1 << 30, context.persistent);
  const auto inputs = contenders::HostBoundInputsFor(context, device, {}, true);
  const auto parts = FindHostParts(context);
  auto ns = [&](int layer, const char* node) {
    const NodeId id =
        graph.FindNode("/model/layers." + std::to_string(layer) + "/mlp/experts/" + node);
    REQUIRE(id != kNoNode);
    return context.node_time_ns[id];
  };
  int routed_parts = 0;
  for (size_t p = 0; p < parts.size(); ++p) {
    if (parts[p].kind != HostPartKind::kRoutedExperts) continue;
    ++routed_parts;
    const int l = parts[p].layer;
    INFO("layer " << l);
    // Gate, up and down tables [8, 64, 64] float32, 131072 B each, Gathered by the router's
    // TopK indices [1, 1, 2]: 393216 B, each expert touched by one token's top 2 of 8 with
    // chance 1/4.
    CHECK(inputs.parts[p].routed_bytes == 3 * 131072);
    CHECK(inputs.parts[p].touch == Approx(0.25));
    // Beside the fetches may run: the three Gathers (any may start before the last), the gate
    // and up MatMuls and the activation (the down Gather reads only the indices, so they need
    // not wait for its table). Not the router's MatMul, Softmax and TopK (ended before), nor
    // the down MatMul, the Squeeze, the weighting Mul and the ReduceSum (each descends from
    // every Gather). The rest's nodes off the chain (the shared experts, the weights'
    // normalisation) count nowhere. At their device times, the experts running there.
    const int64_t overlap_ns = ns(l, "gate_proj/Gather") + ns(l, "up_proj/Gather") +
                               ns(l, "down_proj/Gather") + ns(l, "gate_proj/MatMul") +
                               ns(l, "up_proj/MatMul") + ns(l, "act_fn/Sigmoid") +
                               ns(l, "act_fn/Mul") + ns(l, "Mul");
    CHECK(overlap_ns > 0);
    CHECK(inputs.parts[p].overlap_ns == overlap_ns);
  }
  CHECK(routed_parts == 2);  // layers 1 and 2 (layer 0 is dense)
  CHECK(inputs.chain);
  CHECK(inputs.routed_lane);  // every expert Gather is in a routed-experts part
}

TEST_CASE("fetch after route: on the gather form no plan beats the bound it binds") {
  const Graph graph = TinyMoeGatherDecode();
  const LoopSpec loop{true, FindAliases(graph, {})};
  const HardwareProfile roomy = HostUnitProfile(int64_t{1} << 40);
  const int64_t peak_bytes =
      contenders::BuildContenderContext(graph, roomy, {}, loop).baseline_peak_bytes;
  // 40% of the no-offload peak, one budget (the planner takes seconds under ASan). Links of
  // 0.25 bytes/ns, a quarter of the device's memory: a layer's fetch after route (1/4 of
  // 393216 B, 393 us) outlasts the 135 us that may run beside it (above); a host that reads
  // 0.125 bytes/ns: running the experts there costs more lane time per byte freed than that
  // fetch, so the condition binds.
  HardwareProfile profile = HostUnitProfile(peak_bytes * 40 / 100);
  for (Link& link : profile.links) link.bandwidth_bytes_per_s = 250'000'000;
  profile.host_compute.memory_bandwidth_bytes_per_s = 125'000'000;
  const auto context = contenders::BuildContenderContext(graph, profile, {}, loop);
  const int64_t budget = context.device_capacity_bytes();
  const auto device = contenders::ComputeLowerBounds(
      *context.graph, profile, context.order, context.node_time_ns, budget, context.persistent);
  const auto bound = contenders::ComputeHostAwareBound(context, device, /*in_order=*/true);
  CHECK(bound.routed_lane_binds);  // so the plans below are checked against the new condition
  const int checked = CheckMoePlansMeetBound(graph, profile, context, budget, bound.makespan_ns,
                                             /*with_layer_streaming=*/false);
  CHECK(checked >= 3);  // the planner, KTransformers, the llama.cpp rules
}

}  // namespace
}  // namespace hyperplan::contenders_test
