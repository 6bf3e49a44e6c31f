// The host-aware lower bound (contenders/host_lower_bound.h): the relaxation solved by hand,
// the chain walk on the tiny host decoder, and that no plan beats it.
#include "contenders/host_lower_bound.h"

#include <algorithm>

#include "contender_support.h"
#include "contenders/flexgen_cpu_attention.h"
#include "contenders/llama_cpp_ffn.h"
#include "contenders/llama_cpp_layers.h"
#include "contenders/lower_bounds.h"
#include "contenders/zero_offload.h"
#include "host_decoder.h"
#include "hyperplan/adapters/onnx_import.h"
#include "hyperplan/planner/planner.h"
#include "support/generated_graph.h"

namespace hyperplan::contenders_test {
namespace {

using contenders::ForcedTransfer;
using contenders::HostBoundInputs;
using contenders::SolveHostAwareBound;

// Parts A (device 10, host 30 ns) and B (device 10, host 50 ns), each freeing 100 B; 180 B
// forced over a 1 byte/ns link.
HostBoundInputs TwoParts(bool chain) {
  HostBoundInputs inputs;
  inputs.parts = {{10, 30, 100}, {10, 50, 100}};
  inputs.fixed_device_ns = 5;
  inputs.chain = chain;
  inputs.transfers = {{180, 1'000'000'000}};
  return inputs;
}

TEST_CASE("host-aware bound: a chain, by hand") {
  // L(x) = 20 + 20 xA + 40 xB (A adds 20 ns per 100 B freed, B 40: A first); the link term
  // (180 - 100 xA - 100 xB) ns. With A on the host L = 40, link 80; then B's share s:
  // 40 + 40 s = 80 - 100 s, s = 2/7, T* = 40 + 80/7 = 51.43 ns, so 52 (whole ns).
  auto bound = SolveHostAwareBound(TwoParts(true));
  CHECK(bound.chain);
  CHECK(bound.makespan_ns == 52);
  // At T = 52 the link needs 180 - 52 = 128 B freed: A and 28/100 of B.
  CHECK(bound.freed_bytes == 128);
  CHECK(bound.host_parts == Approx(1.28));
  // 10 ns of device work between the parts (S): L = 30 + ..., 50 + 40 s = 80 - 100 s,
  // s = 3/14, T* = 58.57, so 59.
  HostBoundInputs serial = TwoParts(true);
  serial.serial_device_ns = 10;
  CHECK(SolveHostAwareBound(serial).makespan_ns == 59);
}

TEST_CASE("host-aware bound: without a chain, the host lane alone") {
  // H(x) = 30 xA + 50 xB; A first (0.3 ns per byte): 30 = 80 on the link with A alone, then
  // 30 + 50 s = 80 - 100 s, s = 1/3, T* = 46.67, so 47.
  CHECK(SolveHostAwareBound(TwoParts(false)).makespan_ns == 47);
  // The nodes in no part bind when they take longer: 100 ns.
  HostBoundInputs fixed = TwoParts(false);
  fixed.fixed_device_ns = 100;
  CHECK(SolveHostAwareBound(fixed).makespan_ns == 100);
}

TEST_CASE("host-aware bound: the device lane keeps what stays on the device") {
  // Parts A (device 40, host 30 ns) and B (device 40, host 50 ns), no chain, nothing forced
  // over a link, 5 ns in no part. Without the device lane the bound was the no-part time, 5
  // ns. D(x) = 85 - 40 xA - 40 xB against H(x) = 30 xA + 50 xB; A first (0.75 host ns per
  // device ns): with A on the host D = 45, H = 30; then B's share s: 45 - 40 s = 30 + 50 s,
  // s = 1/6, T* = 38.33, so 39 (at 38: 47 ns off the device cost 30 + 7/40 * 50 = 38.75 > 38).
  HostBoundInputs inputs;
  inputs.parts = {{40, 30, 100}, {40, 50, 100}};
  inputs.fixed_device_ns = 5;
  CHECK(SolveHostAwareBound(inputs).makespan_ns == 39);
  // Each part slower on the host (90 ns) than on the device (40): a share s of one still
  // relieves the device, 85 - 40 s = 90 s, s = 17/26, T* = 58.85, so 59 (at 58: 27 ns off the
  // device cost 27/40 * 90 = 60.75 host ns > 58).
  inputs.parts = {{40, 90, 100}, {40, 90, 100}};
  CHECK(SolveHostAwareBound(inputs).makespan_ns == 59);
}

TEST_CASE("host-aware bound: a part faster on the host goes there free") {
  HostBoundInputs inputs;
  inputs.parts = {{50, 20, 100}};  // 50 ns on the device, 20 on the host
  inputs.chain = true;
  inputs.serial_device_ns = 10;
  // L = 10 + 50 - 30 x; with no transfer forced x = 1 costs nothing: 30 ns.
  CHECK(SolveHostAwareBound(inputs).makespan_ns == 30);
  // No parts and no transfer: the device's own time.
  HostBoundInputs none;
  none.fixed_device_ns = 70;
  CHECK(SolveHostAwareBound(none).makespan_ns == 70);
  // With no parts the device-only bound holds as is (its write-back terms included): 90 ns.
  none.device_only_ns = 90;
  CHECK(SolveHostAwareBound(none).makespan_ns == 90);
}

TEST_CASE("host-aware bound: the tiny decoder is a chain, its attention between the MLPs") {
  const HostDecoder d = MakeHostDecoder(3);
  const HardwareProfile profile = HostUnitProfile(int64_t{1} << 40);
  const auto context = contenders::BuildContenderContext(d.graph, profile, d.times);
  const auto device = contenders::ComputeLowerBounds(*context.graph, profile, context.order,
                                                     context.node_time_ns, 1 << 20);
  CHECK(device.makespan_ns == 900);  // 3 x (100 + 200), nothing forced
  // The default family: each layer's attention (attn_i reads its o_proj weight) and MLP, six
  // parts alternating. Each is one MatMul of {1,16} by {16,16}: on the host max(2 x 16 x 16 /
  // 4, (64 + 1024 + 64) / 4) = 288 ns; it frees its weight and half of each activation it
  // shares with the part before or after it (h1..h2 and a0..a2: 32 B each), the whole of h0
  // (attn0's alone) and h3 (mlp2's): 1088 B, and 1120 B at either end.
  const HostBoundInputs inputs = contenders::HostBoundInputsFor(context, device);
  REQUIRE(inputs.parts.size() == 6);
  for (size_t p = 0; p < inputs.parts.size(); ++p) {
    CHECK(inputs.parts[p].device_ns == (p % 2 == 0 ? kAttentionNs : kMlpDeviceNs));
    CHECK(inputs.parts[p].host_ns == kMlpHostNs);
    const bool end = p == 0 || p == 5;
    CHECK(inputs.parts[p].freed_bytes == (end ? 1120 : 1088));
  }
  CHECK(inputs.chain);
  CHECK(inputs.serial_device_ns == 0);  // every node is in a part
  CHECK(inputs.fixed_device_ns == 0);
  // The attention-core family: no KV cache, so no cores: the three MLPs, with attn0 before the
  // first and attn1, attn2 between them serial on the device: 300 ns.
  HostPartOptions cores;
  cores.attention_cores = true;
  const HostBoundInputs mlps = contenders::HostBoundInputsFor(context, device, cores);
  REQUIRE(mlps.parts.size() == 3);
  CHECK(mlps.chain);
  CHECK(mlps.serial_device_ns == 3 * kAttentionNs);
  CHECK(mlps.fixed_device_ns == 3 * kAttentionNs);
  // Nothing forced and every part slower on the host: both give L(0) = 3 x (100 + 200) = 900.
  const auto bound = contenders::ComputeHostAwareBound(context, device);
  CHECK(bound.makespan_ns == 900);
  CHECK_FALSE(bound.attention_cores);  // ties keep the default family
}

TEST_CASE("host-aware bound: parallel MLPs are no chain") {
  // x -> mlp0 (layer 0) and x -> mlp1 (layer 1), both outputs: mlp1 does not follow mlp0.
  Graph graph;
  const ValueId x = testing::Tensor(graph, "x", {1, 16});
  graph.values[x].is_graph_input = true;
  graph.inputs.push_back(x);
  for (int i = 0; i < 2; ++i) {
    const ValueId w =
        DecoderWeight(graph, "model.layers." + std::to_string(i) + ".mlp.down_proj.weight");
    const ValueId y = testing::Tensor(graph, "y" + std::to_string(i), {1, 16});
    testing::Op(graph, "mlp" + std::to_string(i), "MatMul", {x, w}, {y});
    testing::MarkOutput(graph, y);
  }
  const HardwareProfile profile = HostUnitProfile(int64_t{1} << 40);  // the context keeps it
  const auto context =
      contenders::BuildContenderContext(graph, profile, {kMlpDeviceNs, kMlpDeviceNs});
  const auto parts = FindHostParts(context);
  REQUIRE(parts.size() == 2);
  CHECK_FALSE(contenders::WalkChain(context, parts).chain);
}

TEST_CASE("host-aware bound: no plan of the planner or llama.cpp's rule beats it") {
  const HostDecoder d = MakeHostDecoder(4);
  // No offloading the device peaks at 8 x 1024 + 3 x 64 = 8384 B (h0 kept); budgets from all of it
  // to less than the attention weights alone.
  int host_plans = 0;  // plans that ran something on the host (so the check is not vacuous)
  int fitting_plans = 0;
  for (int64_t capacity : {8384, 6000, 4500, 3500, 2500}) {
    INFO("capacity " << capacity);
    const HardwareProfile profile = HostUnitProfile(capacity);
    const auto context = contenders::BuildContenderContext(d.graph, profile, d.times);
    auto bound_for = [&](const std::vector<NodeId>& order) {
      const auto device = contenders::ComputeLowerBounds(*context.graph, profile, order,
                                                         context.node_time_ns, capacity);
      const int64_t host_ns =
          contenders::ComputeHostAwareBound(context, device, /*in_order=*/true).makespan_ns;
      CHECK(host_ns <= device.makespan_ns);  // x = 0 is in the space
      return host_ns;
    };
    const int64_t bound_ns = bound_for(context.order);
    PlanOptions options;
    options.budget_bytes = capacity;
    options.node_time_ns = d.times;
    options.single_run = true;
    const PlanResult planned = PlanOffload(d.graph, profile, options);
    RequireVerified(d.graph, profile, planned.plan, planned.evaluation);
    if (planned.evaluation.fits) {
      ++fitting_plans;
      host_plans += planned.evaluation.timeline.host_compute_ns > 0;
      // The bound in the plan's own order (host_lower_bound.h, "In order").
      CHECK(planned.evaluation.timeline.makespan_ns >= bound_for(planned.plan.order));
    }
    const auto llama = contenders::LlamaCppFfnPlan(context, std::nullopt);
    if (llama.built && llama.result.evaluation.fits) {
      ++fitting_plans;
      host_plans += llama.result.evaluation.timeline.host_compute_ns > 0;
      CHECK(llama.result.evaluation.timeline.makespan_ns >= bound_ns);
    }
  }
  // Streaming an MLP's 1024 B weight takes 1024 ns, running it on the host 288: below the
  // full capacity both policies run MLPs on the host.
  CHECK(fitting_plans >= 6);
  CHECK(host_plans >= 4);
}

}  // namespace
}  // namespace hyperplan::contenders_test

namespace hyperplan::contenders_test {
namespace {

TEST_CASE("host-aware bound: the generated tiny decoder's plans never beat it") {
  const Graph graph =
      testing::GeneratedGraph({"--preset", "tiny", "--form", "decode"},
                              {{"batch", 1}, {"sequence", 1}, {"past_sequence", 16}});
  // One decode step of a loop, its KV cache fed back, as `hyperplan-bench compare` plans it.
  const LoopSpec loop{true, FindAliases(graph, {})};
  const HardwareProfile roomy = HostUnitProfile(int64_t{1} << 40);
  const int64_t peak_bytes =
      contenders::BuildContenderContext(graph, roomy, {}, loop).baseline_peak_bytes;
  int host_plans = 0;
  for (int percent : {100, 74, 50, 30}) {
    INFO(percent << "% of the no-offload peak");
    const HardwareProfile profile = HostUnitProfile(peak_bytes * percent / 100);
    const auto context = contenders::BuildContenderContext(graph, profile, {}, loop);
    const int64_t budget = context.device_capacity_bytes();
    const auto device = contenders::ComputeLowerBounds(
        *context.graph, profile, context.order, context.node_time_ns, budget, context.persistent);
    const int64_t bound_ns = contenders::ComputeHostAwareBound(context, device).makespan_ns;
    CHECK(bound_ns <= device.makespan_ns);
    CHECK(FindHostParts(context).size() >= 4);  // the 4 layers' MLPs at least
    PlanOptions options;
    options.budget_bytes = budget;
    options.aliases = context.aliases;
    const PlanResult planned = PlanOffload(graph, profile, options);
    RequireVerified(graph, profile, planned.plan, planned.evaluation);
    if (planned.evaluation.fits && planned.plan.order == context.order) {
      host_plans += planned.evaluation.timeline.host_compute_ns > 0;
      CHECK(planned.evaluation.timeline.makespan_ns >= bound_ns);
    }
    const auto llama = contenders::LlamaCppFfnPlan(context, budget);
    if (llama.built && llama.result.evaluation.fits) {
      CHECK(llama.result.evaluation.timeline.makespan_ns >= bound_ns);
    }
    // Whole layers (attention parts with their KV cache) and attention cores: the two families.
    for (const auto& placed : {contenders::LlamaCppLayersPlan(context, budget),
                               contenders::FlexGenCpuAttentionPlan(context, budget)}) {
      INFO(placed.note);
      if (!placed.built) continue;
      RequireVerified(graph, profile, placed.result.plan, placed.result.evaluation);
      if (placed.result.evaluation.fits) {
        CHECK(placed.result.evaluation.timeline.makespan_ns >= bound_ns);
      }
    }
  }
  CHECK(host_plans >= 1);
}

TEST_CASE("host-aware bound: the generated tiny training step's plans never beat it") {
  const Graph graph = testing::GeneratedGraph({"--preset", "tiny", "--form", "train"},
                                              {{"batch", 1}, {"sequence", 8}});
  const LoopSpec loop{true, FindAliases(graph, {})};
  const HardwareProfile roomy = HostUnitProfile(int64_t{1} << 40);
  const int64_t peak_bytes =
      contenders::BuildContenderContext(graph, roomy, {}, loop).baseline_peak_bytes;
  for (int percent : {100, 60}) {
    INFO(percent << "% of the no-offload peak");
    const HardwareProfile profile = HostUnitProfile(peak_bytes * percent / 100);
    const auto context = contenders::BuildContenderContext(graph, profile, {}, loop);
    const int64_t budget = context.device_capacity_bytes();
    const auto device = contenders::ComputeLowerBounds(
        *context.graph, profile, context.order, context.node_time_ns, budget, context.persistent);
    const auto bound = contenders::ComputeHostAwareBound(context, device);
    CHECK(bound.part_count >= 4);  // the 4 layers' optimizer updates at least
    const auto zero = contenders::ZeroOffloadPlan(context, budget);
    INFO(zero.note);
    REQUIRE(zero.built);
    RequireVerified(graph, profile, zero.result.plan, zero.result.evaluation);
    if (zero.result.evaluation.fits) {
      CHECK(zero.result.evaluation.timeline.makespan_ns >= bound.makespan_ns);
    }
    // The planner offers ZeRO-Offload's placement to itself (planner.cc WithEveryUpdateOnHost),
    // through the same planning, so its plan is never slower than the contender's where both fit.
    PlanOptions options;
    options.budget_bytes = budget;
    options.aliases = context.aliases;
    const PlanResult planned = PlanOffload(graph, profile, options);
    RequireVerified(graph, profile, planned.plan, planned.evaluation);
    if (planned.evaluation.fits && zero.result.evaluation.fits) {
      CHECK(planned.evaluation.timeline.makespan_ns <= zero.result.evaluation.timeline.makespan_ns);
    }
  }
}

}  // namespace
}  // namespace hyperplan::contenders_test
