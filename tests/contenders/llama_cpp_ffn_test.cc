// llama.cpp's -ot FFN placement (contenders/llama_cpp_ffn.h) on the tiny host decoder, by hand.
#include "contenders/llama_cpp_ffn.h"

#include <algorithm>

#include "contender_support.h"
#include "host_decoder.h"

namespace hyperplan::contenders_test {
namespace {

using contenders::BuildContenderContext;
using contenders::LlamaCppFfnPlan;

// The unit of each MLP node's compute step in `plan`, by layer.
std::vector<ComputeUnit> MlpUnits(const Graph& graph, const Plan& plan, int layers) {
  std::vector<ComputeUnit> units(layers, ComputeUnit::kDevice);
  for (const PlanStep& step : plan.steps) {
    if (step.kind != StepKind::kCompute) continue;
    const std::string& name = graph.nodes[step.node].name;
    if (name.rfind("mlp", 0) == 0) units[std::stoi(name.substr(3))] = step.unit;
  }
  return units;
}

TEST_CASE("llama.cpp -ot FFN: the first layers' FFNs go to the CPU until the rest is resident") {
  const HostDecoder d = MakeHostDecoder(3);
  // No offloading, a one-shot run keeps the weights and the input h0 to its end, so the
  // device's live peak is at step 1 (mlp0): the six weights (6 x 1024 B), h0, a0 and h1 (64 B
  // each) = 6336 B. Each FFN on the CPU takes its 1024 B weight off the device: with one at
  // least 5120 + 64 (h0) = 5184 B, with two at most 4096 + 3 x 64 = 4288 B.
  const HardwareProfile profile = HostUnitProfile(4500);
  const auto context = BuildContenderContext(d.graph, profile, d.times);
  CHECK(context.lifetimes.timeline.peak_bytes == 6336);
  const auto result = LlamaCppFfnPlan(context, std::nullopt);
  REQUIRE(result.built);
  CHECK(result.ffn_parts == 3);
  CHECK(result.cpu_ffn_layers == 2);  // 5184 > 4500 >= 4288
  CHECK(result.note == "-ot FFN of the first 2/3 layers on the CPU");
  const Plan& plan = result.result.plan;
  CHECK(MlpUnits(d.graph, plan, 3) ==
        std::vector<ComputeUnit>{ComputeUnit::kHost, ComputeUnit::kHost, ComputeUnit::kDevice});
  CHECK(plan.produced_by == "llama.cpp -ot FFN");
  RequireVerified(d.graph, profile, plan, result.result.evaluation);
  CHECK(result.result.evaluation.fits);
  // The host runs two MLPs (2 x 288 ns); the device the three attentions and mlp2 (3 x 100 +
  // 200 ns): 1076 ns of compute.
  CHECK(result.result.evaluation.timeline.host_compute_ns == 2 * kMlpHostNs);
  CHECK(result.result.evaluation.timeline.compute_ns ==
        2 * kMlpHostNs + 3 * kAttentionNs + kMlpDeviceNs);
}

TEST_CASE("llama.cpp -ot FFN: a device that fits everything keeps every FFN") {
  const HostDecoder d = MakeHostDecoder(3);
  const HardwareProfile profile = HostUnitProfile(6336);  // the no-offload peak exactly
  const auto result = LlamaCppFfnPlan(BuildContenderContext(d.graph, profile, d.times), {});
  REQUIRE(result.built);
  CHECK(result.cpu_ffn_layers == 0);
  CHECK(result.result.evaluation.timeline.host_compute_ns == 0);
}

TEST_CASE("llama.cpp -ot FFN: where even every FFN on the CPU does not fit, not built") {
  const HostDecoder d = MakeHostDecoder(3);
  // All three FFNs on the CPU leave at least the attention weights and h0, 3 x 1024 + 64 =
  // 3136 B, over 3000: llama.cpp
  // would move whole layers (-ngl), which the plan cannot express.
  const HardwareProfile profile = HostUnitProfile(3000);  // the context keeps a reference
  const auto result = LlamaCppFfnPlan(BuildContenderContext(d.graph, profile, d.times), {});
  CHECK_FALSE(result.built);
  CHECK(result.note.find("-ngl") != std::string::npos);
  CHECK(result.note.find("all 3 FFNs") != std::string::npos);
  // Without a host unit there is nothing to place.
  const HardwareProfile no_host = UnitProfile(3000);
  const auto none = LlamaCppFfnPlan(BuildContenderContext(d.graph, no_host, d.times), {});
  CHECK_FALSE(none.built);
  CHECK(none.note == "the profile has no host unit");
}

}  // namespace
}  // namespace hyperplan::contenders_test
