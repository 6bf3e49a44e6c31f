// The field's host placements as contenders (issue 30): llama.cpp's -ngl with fit's dense rule,
// FlexGen's CPU attention and ZeRO-Offload's CPU Adam, each planned and verified like the
// planner's plans; which nodes run where, by hand.
#include <set>
#include <string>

#include "contender_support.h"
#include "contenders/flexgen_cpu_attention.h"
#include "contenders/llama_cpp_layers.h"
#include "contenders/zero_offload.h"
#include "host_decoder.h"
#include "hyperplan/adapters/onnx_import.h"
#include "kv_decoder.h"
#include "support/generated_graph.h"

namespace hyperplan::contenders_test {
namespace {

using contenders::BuildContenderContext;

// The names of the nodes `plan` runs on the host, in step order.
std::vector<std::string> HostNodes(const Graph& graph, const Plan& plan) {
  std::vector<std::string> names;
  for (const PlanStep& step : plan.steps) {
    if (step.kind == StepKind::kCompute && step.unit == ComputeUnit::kHost) {
      names.push_back(graph.nodes[step.node].name);
    }
  }
  return names;
}

// llama.cpp -ngl on the KV decoder at a device capacity: the note and the host nodes.
contenders::PlacementResult Ngl(const KvDecoder& d, const HardwareProfile& profile) {
  const auto context = BuildContenderContext(d.graph, profile, d.times, d.loop);
  auto result = contenders::LlamaCppLayersPlan(context, std::nullopt);
  if (result.built) RequireVerified(d.graph, profile, result.result.plan, result.result.evaluation);
  return result;
}

TEST_CASE("llama.cpp -ngl: whole layers on the GPU from the last one forwards") {
  const KvDecoder d = MakeKvDecoder(3);
  // A layer on the GPU keeps its three weights and its cache there: 3 x 1024 + 512 = 3584 B;
  // a partial layer (its FFN on the CPU) 2 x 1024 + 512 = 2560 B; a layer on the CPU none (its
  // weights and cache are read and appended on the host). Fit's order c = 0 .. 6 needs
  // 0, 2560, 3584, 6144, 7168, 9728, 10752 B of persistent state, plus at most three 64 B
  // activations live at once (192 B) in this chain.
  const HardwareProfile two = HostUnitProfile(7168 + 400);  // c = 4 fits (<= 7360), c = 5 not
  const auto whole = Ngl(d, two);
  REQUIRE(whole.built);
  CHECK(whole.note == "-ngl 2: 1/3 layers on the CPU");
  CHECK(whole.host_pieces == 1);
  CHECK(whole.pieces == 3);
  CHECK(whole.result.plan.produced_by == "llama.cpp -ngl");
  CHECK(HostNodes(d.graph, whole.result.plan) ==
        std::vector<std::string>{"proj0", "core0", "out0", "mlp0"});
  CHECK(whole.result.evaluation.fits);

  const HardwareProfile partial_room = HostUnitProfile(6144 + 400);  // c = 3 (<= 6336), c = 4 not
  const auto partial = Ngl(d, partial_room);
  REQUIRE(partial.built);
  // c = 3: one layer on the GPU, layer 1 partial (attention on the GPU, FFN on the CPU), layer
  // 0 on the CPU: -ngl counts the partial layer.
  CHECK(partial.note == "-ngl 2: 1/3 layers on the CPU, layer 1's FFN too");
  CHECK(HostNodes(d.graph, partial.result.plan) ==
        std::vector<std::string>{"proj0", "core0", "out0", "mlp0", "mlp1"});

  const HardwareProfile tight = HostUnitProfile(400);  // only c = 0: every layer on the CPU
  const auto none = Ngl(d, tight);
  REQUIRE(none.built);
  CHECK(none.note == "-ngl 0: 3/3 layers on the CPU");
  CHECK(HostNodes(d.graph, none.result.plan).size() == 12);
  // 12 host steps one after another at 100 ns or more each: the host lane alone takes 1200 ns.
  CHECK(none.result.evaluation.timeline.host_compute_ns >= 12 * kKvNodeNs);

  const HardwareProfile no_host = testing::UnitProfile(400);
  const auto context = BuildContenderContext(d.graph, no_host, d.times, d.loop);
  CHECK(contenders::LlamaCppLayersPlan(context, std::nullopt).note ==
        "the profile has no host unit");
}

TEST_CASE("FlexGen CPU attention: every layer's core on the host, the rest planned") {
  const KvDecoder d = MakeKvDecoder(3);
  // Roomy: nothing needs to move, yet FlexGen's policy puts the attention over the cache on
  // the CPU all the same.
  const HardwareProfile profile = HostUnitProfile(int64_t{1} << 40);
  const auto context = BuildContenderContext(d.graph, profile, d.times, d.loop);
  const auto result = contenders::FlexGenCpuAttentionPlan(context, std::nullopt);
  REQUIRE(result.built);
  CHECK(result.note == "attention over the KV cache of 3/3 layers on the CPU");
  CHECK(result.result.plan.produced_by == "FlexGen CPU attention");
  RequireVerified(d.graph, profile, result.result.plan, result.result.evaluation);
  CHECK(HostNodes(d.graph, result.result.plan) ==
        std::vector<std::string>{"core0", "core1", "core2"});
  // The device runs the other nine nodes at 100 ns each.
  CHECK(result.result.evaluation.timeline.compute_ns -
            result.result.evaluation.timeline.host_compute_ns ==
        9 * kKvNodeNs);
  // A model with no KV cache: nothing to place.
  const HostDecoder plain = MakeHostDecoder(2);
  const auto plain_context = BuildContenderContext(plain.graph, profile, plain.times);
  const auto none = contenders::FlexGenCpuAttentionPlan(plain_context, std::nullopt);
  CHECK_FALSE(none.built);
  CHECK(none.note == "not built: no layer's attention over a KV cache can run on the host");
}

TEST_CASE("ZeRO-Offload: every parameter's Adam on the host, the gradients crossing") {
  const Graph graph = testing::GeneratedGraph({"--preset", "tiny", "--form", "train"},
                                              {{"batch", 1}, {"sequence", 8}});
  const HardwareProfile profile = HostUnitProfile(int64_t{1} << 40);
  const auto context = BuildContenderContext(graph, profile, {}, {true, FindAliases(graph, {})});
  const auto result = contenders::ZeroOffloadPlan(context, std::nullopt);
  REQUIRE(result.built);
  // Each of the 4 layers' updates, and one of the weights outside layers (the embedding, the
  // final norm and the LM head).
  CHECK(result.note == "5 optimizer parts on the CPU");
  RequireVerified(graph, profile, result.result.plan, result.result.evaluation);
  const auto host = HostNodes(graph, result.result.plan);
  // 4 layers x 9 parameters + 3 outside layers, each updated by Adam's 12 elementwise nodes:
  // exp_avg (Mul, Mul_1, Add), exp_avg_sq (Mul of the gradient by itself, Mul_1, Mul_2, Add)
  // and the step (Sqrt, Add eps, Div, Mul lr, Sub); the gradient's Gemm is not one of them.
  CHECK(host.size() == 39 * 12);
  for (const std::string& name : host) CHECK(name.rfind("/optimizer/", 0) == 0);
  // A decode step updates no parameter.
  const KvDecoder d = MakeKvDecoder(1);
  const auto decode = BuildContenderContext(d.graph, profile, d.times, d.loop);
  CHECK(contenders::ZeroOffloadPlan(decode, std::nullopt).note ==
        "not built: no optimizer update that can run on the host");
}

}  // namespace
}  // namespace hyperplan::contenders_test
