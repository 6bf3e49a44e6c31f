// Tier buffers: the compute-step bounds every execution obeys, the ranges tier copies occupy,
// and their layout, by hand and against brute-force reachability.
#include "layout/tier_layout.h"

#include <catch2/catch.hpp>
#include <random>
#include <vector>

#include "hyperplan/layout/plan_layout.h"
#include "plan/compute_bounds.h"
#include "planner/planner_support.h"

using namespace hyperplan;
using namespace hyperplan::planner_test;

TEST_CASE("tier layout: compute bounds follow streams and waits, not the sequence") {
  // 0 compute n0; 1 Store (link 0) waits 0; 2 compute n1; 3 Detach waits 1; 4 compute n2;
  // 5 Prefetch (link 1) waits 4; 6 compute n3 waits 5.
  Plan plan;
  plan.order = {0, 1, 2, 3};
  plan.steps = {ComputeStep(0),     TransferStep(StepKind::kStore, 0, 0, {0}),
                ComputeStep(1),     DetachStep({1}),
                ComputeStep(2),     TransferStep(StepKind::kPrefetch, 1, 0, {4}),
                ComputeStep(3, {5})};
  const planner::ComputeBounds bounds =
      planner::BoundByCompute(plan, UnitProfile(int64_t{1} << 40, 2));
  // Ended before: the Store knows n0 (its wait); the Detach knows n1 (stream) and n0 (via the
  // Store); the Prefetch n2; n3 n2.
  CHECK(bounds.ended_before == std::vector<Step>{-1, 0, 0, 1, 1, 2, 2});
  // Starts after: n1 does not wait for the Store, but the Detach does and n2 follows the
  // Detach on the compute stream: the Store is over before n2 starts (2). The Prefetch before
  // n3 (3). n3 precedes nothing: the order's size (4).
  CHECK(bounds.starts_after == std::vector<Step>{1, 2, 2, 2, 3, 3, 4});
}

TEST_CASE("tier layout: compute bounds match brute-force reachability on random plans") {
  for (const uint32_t seed : {11u, 12u, 13u, 14u, 15u}) {
    std::mt19937 random(seed);
    Plan plan;
    const size_t count = 120;
    Step computes = 0;
    for (size_t i = 0; i < count; ++i) {
      std::vector<int32_t> waits;
      for (int w = static_cast<int>(random() % 3); w > 0 && i > 0; --w) {
        waits.push_back(static_cast<int32_t>(random() % i));
      }
      std::sort(waits.begin(), waits.end());
      waits.erase(std::unique(waits.begin(), waits.end()), waits.end());
      switch (random() % 4) {
        case 0:
          plan.steps.push_back(ComputeStep(computes++, waits));
          break;
        case 1:
          plan.steps.push_back(DetachStep(waits));
          break;
        default:
          plan.steps.push_back(TransferStep(StepKind::kPrefetch, static_cast<int32_t>(random() % 2),
                                            static_cast<int32_t>(random() % 2), waits));
          break;
      }
    }
    plan.order.resize(static_cast<size_t>(computes));
    // reach[a][b]: a chain of stream and wait edges leads from a to b.
    std::vector<std::vector<uint8_t>> reach(count, std::vector<uint8_t>(count, 0));
    auto stream = [&](size_t i) {
      const PlanStep& step = plan.steps[i];
      return step.kind == StepKind::kCompute || step.kind == StepKind::kDetach
                 ? -1
                 : step.link * 2 + step.channel;
    };
    for (size_t b = 0; b < count; ++b) {
      std::vector<size_t> predecessors(plan.steps[b].waits_for.begin(),
                                       plan.steps[b].waits_for.end());
      for (size_t a = b; a-- > 0;) {
        if (stream(a) == stream(b)) {
          predecessors.push_back(a);
          break;
        }
      }
      for (const size_t p : predecessors) {
        reach[p][b] = 1;
        for (size_t a = 0; a < p; ++a) reach[a][b] |= reach[a][p];
      }
    }
    const planner::ComputeBounds bounds =
        planner::BoundByCompute(plan, UnitProfile(int64_t{1} << 40, 2));
    for (size_t i = 0; i < count; ++i) {
      Step ended = -1;
      Step starts = computes;
      for (size_t c = 0; c < count; ++c) {
        if (plan.steps[c].kind != StepKind::kCompute) continue;
        if (reach[c][i]) ended = std::max(ended, plan.steps[c].boundary);
        if (reach[i][c]) starts = std::min(starts, plan.steps[c].boundary);
      }
      INFO("seed " << seed << ", step " << i);
      REQUIRE(bounds.ended_before[i] == ended);
      REQUIRE(bounds.starts_after[i] == starts);
    }
  }
}

TEST_CASE("tier layout: copies share space only when the waits order them") {
  // 0 compute n0; 1 Store u (link 0 channel 0) waits 0; 2 Store x (link 0 channel 1) waits 0;
  // 3 compute n1; 4 Prefetch u (link 1) waits 1, 3; 5 compute n2 waits 4;
  // 6 Store w (link 0 channel 0) waits 5. Copies on ddr, 100 B each: u (1..4), x (2..end),
  // w (6..end).
  Plan plan;
  plan.order = {0, 1, 2};
  plan.steps = {ComputeStep(0),
                TransferStep(StepKind::kStore, 0, 0, {0}),
                TransferStep(StepKind::kStore, 0, 1, {0}),
                ComputeStep(1),
                TransferStep(StepKind::kPrefetch, 1, 0, {1, 3}),
                ComputeStep(2, {4}),
                TransferStep(StepKind::kStore, 0, 0, {5})};
  plan.tier_copies = {{0, 1, 100, 1, 4}, {1, 1, 100, 2, -1}, {2, 1, 100, 6, -1}};
  // u: allocated after n0 (1), freed before n2 starts (2): [1, 2]. x: after n0 (1), never
  // freed: [1, 3]. w: after n2 (which ended before it: 2 + 1 = 3): [3, 3].
  const std::vector<LayoutBlock> blocks = planner::TierCopyBlocks(plan, UnitProfile());
  REQUIRE(blocks.size() == 3);
  CHECK((blocks[0].first == 1 && blocks[0].last == 2));
  CHECK((blocks[1].first == 1 && blocks[1].last == 3));
  CHECK((blocks[2].first == 3 && blocks[2].last == 3));

  HardwareProfile profile = UnitProfile();
  profile.tiers[1].alignment_bytes = 64;
  const std::vector<TierBuffer> buffers = planner::LayoutTierBuffers(profile, {}, plan);
  REQUIRE(buffers.size() == 1);
  // Padded to 128 each. Largest first, longest first: x at 0; u meets x: 128; w meets only
  // x (u is gone by then in every execution): 128, sharing u's space. Buffer 256.
  CHECK(buffers[0].tier == 1);
  CHECK(buffers[0].alignment_bytes == 64);
  CHECK(buffers[0].size_bytes == 256);
  CHECK(buffers[0].live_peak_bytes == 200);
  CHECK(plan.tier_copies[0].offset_bytes == 128);
  CHECK(plan.tier_copies[1].offset_bytes == 0);
  CHECK(plan.tier_copies[2].offset_bytes == 128);
  // x's Store waits only for n0, so even if it ran after u's Prefetch in a replay it could
  // run before it in another execution: x never shares with u or w.
}

TEST_CASE("tier layout: a planned plan with staging copies gets verified tier buffers") {
  // Weights homed on nvme reach the device through ddr: each fetched weight has a home copy
  // on nvme and a staging copy on ddr.
  Graph graph;
  const ValueId w0 = Weight(graph, "w0", 300);
  const ValueId w1 = Weight(graph, "w1", 300);
  const ValueId x = Input(graph, "x", 10);
  const ValueId a = Work(graph, "n0", {x, w0}, "a", 10, 400);
  const ValueId b = Work(graph, "n1", {a}, "b", 10, 400);
  MarkOutput(graph, Work(graph, "n2", {b, w1}, "y", 10, 400));
  HardwareProfile profile = NvmeProfile();
  profile.tiers[0].alignment_bytes = 32;
  profile.tiers[1].alignment_bytes = 64;
  profile.tiers[2].alignment_bytes = 4096;
  const PlanResult result = PlanOffload(graph, profile, Budget(400));
  const Plan& plan = result.plan;
  INFO(result.infeasibility.message);
  REQUIRE(!plan.tier_copies.empty());
  CHECK(plan.layout.alignment_bytes == 32);
  for (const int64_t offset : plan.layout.offset_bytes) CHECK(offset % 32 == 0);
  for (const TierBuffer& buffer : plan.tier_buffers) {
    CHECK(buffer.alignment_bytes == profile.tiers[buffer.tier].alignment_bytes);
    CHECK(buffer.size_bytes >= buffer.live_peak_bytes);
  }
  for (const TierCopy& copy : plan.tier_copies) {
    CHECK(copy.offset_bytes % profile.tiers[copy.tier].alignment_bytes == 0);
  }
  // Every copy on nvme is a weight's home copy, live all run: one 4 KiB-padded slot each.
  const auto on_nvme = std::count_if(plan.tier_copies.begin(), plan.tier_copies.end(),
                                     [](const TierCopy& copy) { return copy.tier == 2; });
  CHECK(on_nvme >= 1);
  const auto nvme = std::find_if(plan.tier_buffers.begin(), plan.tier_buffers.end(),
                                 [](const TierBuffer& buffer) { return buffer.tier == 2; });
  REQUIRE(nvme != plan.tier_buffers.end());
  CHECK(nvme->size_bytes == on_nvme * 4096);
  CHECK(VerifyPlan(graph, profile, plan, result.evaluation).ok);
}
