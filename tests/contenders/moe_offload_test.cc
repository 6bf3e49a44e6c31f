// The MoE contenders (contenders/moe_offload.h) and the bound's sparse terms
// (host_lower_bound.h) on the generator's tiny MoE in the ORT form, by hand.
// tiny-moe: 3 layers, layer 0 dense, layers 1 and 2 MoE with 8 routed experts (top 2) of width
// 64 on hidden 64 and one shared expert, float32.
#include "contenders/moe_offload.h"

#include <algorithm>

#include "contender_support.h"
#include "contenders/host_lower_bound.h"
#include "contenders/lower_bounds.h"
#include "host_decoder.h"
#include "hyperplan/adapters/onnx_import.h"
#include "support/generated_graph.h"

namespace hyperplan::contenders_test {
namespace {

Graph TinyMoeDecode() {
  return testing::GeneratedGraph({"--preset", "tiny-moe", "--form", "decode", "--moe-form", "ort"},
                                 {{"batch", 1}, {"sequence", 1}, {"past_sequence", 4}});
}

// The unit of the compute step of the node named `name` in `plan`.
ComputeUnit UnitOf(const Graph& graph, const Plan& plan, const std::string& name) {
  for (const PlanStep& step : plan.steps) {
    if (step.kind == StepKind::kCompute && graph.nodes[step.node].name == name) return step.unit;
  }
  FAIL("no compute step for " << name);
  return ComputeUnit::kDevice;
}

constexpr int64_t kBigDevice = int64_t{1} << 40;

// The host-aware bound's forced transfers of `graph` on a big host-unit profile, where one
// token routes to 2 of 8 experts (rho = 3/4) and `unrouted_bytes` (Z) of the stacked experts
// are never read: each device-only term (M, r) becomes (M - Z, r) and (M, 4 r).
void CheckForcedTransfersLessUnrouted(const Graph& graph, int64_t unrouted_bytes) {
  const HardwareProfile profile = HostUnitProfile(kBigDevice);
  const auto context = contenders::BuildContenderContext(graph, profile);
  const auto device = contenders::ComputeLowerBounds(*context.graph, profile, context.order,
                                                     context.node_time_ns, 0, context.persistent);
  const auto inputs = contenders::HostBoundInputsFor(context, device);
  const size_t terms = 2 + device.must_move_bytes_per_link.size();
  REQUIRE(inputs.transfers.size() == 2 * terms);
  CHECK(inputs.transfers[0].bytes ==
        std::max<int64_t>(0, device.must_fetch_bytes - unrouted_bytes));
  CHECK(inputs.transfers[1].bytes == device.must_fetch_bytes);
  CHECK(inputs.transfers[1].bytes_per_s == 4 * inputs.transfers[0].bytes_per_s);
}

TEST_CASE("MoE contenders: the routed experts are each MoE layer's com.microsoft MoE node") {
  const Graph graph = TinyMoeDecode();
  const HardwareProfile profile = HostUnitProfile(kBigDevice);  // the context keeps a reference
  const auto context = contenders::BuildContenderContext(graph, profile);
  const auto experts = contenders::FindRoutedExperts(context);
  // Layer 0 is dense; layers 1 and 2 each have one MoE node and nothing else fed by it alone
  // (its output goes straight into the add with the shared expert's).
  REQUIRE(experts.size() == 2);
  CHECK(experts[0].layer == 1);
  CHECK(experts[1].layer == 2);
  for (const auto& layer : experts) {
    REQUIRE(layer.nodes.size() == 1);
    CHECK(graph.nodes[layer.nodes[0]].op_type == "MoE");
  }
}

TEST_CASE("KTransformers: routed experts on the host; router and shared expert on the device") {
  const Graph graph = TinyMoeDecode();
  const HardwareProfile profile = HostUnitProfile(kBigDevice);
  const auto context = contenders::BuildContenderContext(graph, profile);
  const auto result =
      contenders::MoeOffloadPlan(context, std::nullopt, contenders::MoePlacement::kKTransformers);
  REQUIRE(result.built);
  CHECK(result.expert_layers == 2);
  CHECK(result.host_expert_layers == 2);
  CHECK(result.note == "routed experts of all 2 MoE layers on the CPU");
  const Plan& plan = result.result.plan;
  CHECK(plan.produced_by == "KTransformers");
  for (int layer : {1, 2}) {
    const std::string p = "/model/layers." + std::to_string(layer) + "/mlp";
    CHECK(UnitOf(graph, plan, p + "/MoE") == ComputeUnit::kHost);
    CHECK(UnitOf(graph, plan, p + "/gate/MatMul") == ComputeUnit::kDevice);
    CHECK(UnitOf(graph, plan, p + "/shared_experts/down_proj/MatMul") == ComputeUnit::kDevice);
  }
  // The dense layer's MLP stays on the device too.
  CHECK(UnitOf(graph, plan, "/model/layers.0/mlp/down_proj/MatMul") == ComputeUnit::kDevice);
  RequireVerified(graph, profile, plan, result.result.evaluation);
}

TEST_CASE("llama.cpp --n-cpu-moe and --fit: a device that holds everything keeps the experts") {
  const Graph graph = TinyMoeDecode();
  const HardwareProfile profile = HostUnitProfile(kBigDevice);  // the context keeps a reference
  const auto context = contenders::BuildContenderContext(graph, profile);
  const auto n_cpu_moe =
      contenders::MoeOffloadPlan(context, std::nullopt, contenders::MoePlacement::kLlamaCppNCpuMoe);
  REQUIRE(n_cpu_moe.built);
  CHECK(n_cpu_moe.host_expert_layers == 0);
  CHECK(n_cpu_moe.note == "--n-cpu-moe 0 (0/2 MoE layers' experts on the CPU)");
  const auto fit =
      contenders::MoeOffloadPlan(context, std::nullopt, contenders::MoePlacement::kGpuExpertsFirst);
  REQUIRE(fit.built);
  CHECK(fit.host_expert_layers == 0);
  CHECK(fit.note == "experts of MoE layers 1-2 on the GPU (2/2), the rest on the CPU");
}

TEST_CASE("host-aware bound: a MoE node's unrouted experts leave the forced transfers") {
  const Graph graph = TinyMoeDecode();
  // Per MoE layer, float32: fc1 [8, 128, 64] = 262144 B and fc2 [8, 64, 64] = 131072 B, W =
  // 393216 B; one token routes to 2 of 8 experts, R = W / 4 = 98304 B, so W - R = 294912 B
  // and rho = 3/4. Z over the two layers = 589824 B. Each device-only term (M, r) becomes
  // (M - Z, r) and (M, 4 r).
  CheckForcedTransfersLessUnrouted(graph, 589824);
}

TEST_CASE("host-aware bound: the gather form's unrouted table bytes leave the forced transfers") {
  const Graph graph =
      testing::GeneratedGraph({"--preset", "tiny-moe", "--form", "decode", "--moe-form", "gather"},
                              {{"batch", 1}, {"sequence", 1}, {"past_sequence", 4}});
  // Per MoE layer, float32 tables each Gathered by the router's [1, 1, 2] indices: gate and up
  // [8, 64, 64] and down [8, 64, 64], 131072 B each, W = 393216 B; one token picks 2 of 8, so
  // each Gather reads R = W / 4 in all, W - R = 294912 B and rho = 3/4, as the ORT form's MoE
  // node. Z over the two layers = 589824 B: each device-only term (M, r) becomes (M - Z, r)
  // and (M, 4 r).
  CheckForcedTransfersLessUnrouted(graph, 589824);
}

TEST_CASE("host-aware bound: a MoE block's two parts join one link of the decoder's chain") {
  const Graph graph = TinyMoeDecode();
  const HardwareProfile profile = HostUnitProfile(kBigDevice);
  const auto context = contenders::BuildContenderContext(graph, profile);
  const auto device = contenders::ComputeLowerBounds(*context.graph, profile, context.order,
                                                     context.node_time_ns, 0, context.persistent);
  const auto inputs = contenders::HostBoundInputsFor(context, device);
  // Parts in step order: the embedding, layer 0's attention and MLP, layer 1's attention, rest
  // (router MatMul and Reshape, the shared expert) and routed experts (the MoE node), layer 2's
  // three, the LM head.
  const auto parts = FindHostParts(context);
  REQUIRE(parts.size() == 10);
  REQUIRE(parts[4].name == "layer 1 MLP");
  REQUIRE(parts[5].name == "layer 1 routed experts");
  // Each block's rest, MoE node and the add of the two outputs are one link, ending at that
  // add, so the decoder, each layer's attention a part too, is still a chain.
  CHECK(inputs.chain);
  // In L the rest counts only its nodes before the MoE node (the router MatMul and its
  // Reshape); the shared expert may run beside the experts, and nothing of the rest follows
  // them.
  auto time_of = [&](const std::string& name) {
    return context.node_time_ns[graph.FindNode(name)];
  };
  CHECK(inputs.parts[4].chain_device_ns ==
        time_of("/model/layers.1/mlp/gate/MatMul") + time_of("/model/layers.1/mlp/gate/Reshape"));
  CHECK(inputs.parts[4].chain_device_ns < inputs.parts[4].device_ns);
  CHECK(inputs.parts[5].chain_device_ns == -1);  // the experts count whole
}

}  // namespace
}  // namespace hyperplan::contenders_test
