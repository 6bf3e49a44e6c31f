// schemas/plan.proto -> core Plan: the round trip keeps every field a runtime or the verifier
// reads, names resolve against the graph, and the profile is matched by names.
#include <catch2/catch.hpp>

#include "hyperplan/error.h"
#include "planio/plan_from_proto.h"
#include "planio/profile_proto.h"
#include "planio_fixture.h"

using namespace hyperplan;
using namespace hyperplan::planio_test;
namespace pb = hyperplan::plan::v1;

namespace {

EvaluatedPlan BackToCore(const pb::Plan& message, const Graph& graph,
                         const HardwareProfile& profile) {
  const planio::ProfileMapping mapping = planio::MapProfile(message, "plan.pb", profile);
  return planio::PlanFromProto(message, "plan.pb", graph, profile, mapping);
}

// The Error a call throws, or a failed check when it throws none.
template <typename Call>
Error Thrown(Call call) {
  try {
    call();
  } catch (const Error& error) {
    return error;
  }
  FAIL("no error thrown");
  return Error(ErrorKind::kInternal, "");
}

void CheckSameSteps(const EvaluatedPlan& planned_a, const EvaluatedPlan& planned_b) {
  const Plan& a = planned_a.plan;
  const Plan& b = planned_b.plan;
  REQUIRE(a.steps.size() == b.steps.size());
  for (size_t i = 0; i < a.steps.size(); ++i) {
    INFO("step " << i);
    const PlanStep& x = a.steps[i];
    const PlanStep& y = b.steps[i];
    CHECK(x.kind == y.kind);
    CHECK(x.node == y.node);
    CHECK(x.value == y.value);
    CHECK(x.src_tier == y.src_tier);
    CHECK(x.dst_tier == y.dst_tier);
    CHECK(x.link == y.link);
    CHECK(x.channel == y.channel);
    CHECK(x.bytes == y.bytes);
    CHECK(x.boundary == y.boundary);
    CHECK(x.waits_for == y.waits_for);
    CHECK(x.planned_start_ns == y.planned_start_ns);
    CHECK(x.planned_end_ns == y.planned_end_ns);
    CHECK(planned_a.evaluation.timeline.steps[i].start_ns ==
          planned_b.evaluation.timeline.steps[i].start_ns);
    CHECK(planned_a.evaluation.timeline.steps[i].end_ns ==
          planned_b.evaluation.timeline.steps[i].end_ns);
  }
}

void CheckSameMemory(const Plan& a, const Plan& b) {
  REQUIRE(a.residency.size() == b.residency.size());
  for (size_t r = 0; r < a.residency.size(); ++r) {
    INFO("residency " << r);
    CHECK(a.residency[r].value == b.residency[r].value);
    CHECK(a.residency[r].scratch_node == b.residency[r].scratch_node);
    CHECK(a.residency[r].first_step == b.residency[r].first_step);
    CHECK(a.residency[r].last_step == b.residency[r].last_step);
    CHECK(a.residency[r].bytes == b.residency[r].bytes);
    CHECK(a.residency[r].opened_by == b.residency[r].opened_by);
    CHECK(a.residency[r].closed_by == b.residency[r].closed_by);
  }
  REQUIRE(a.tier_copies.size() == b.tier_copies.size());
  for (size_t c = 0; c < a.tier_copies.size(); ++c) {
    CHECK(a.tier_copies[c].value == b.tier_copies[c].value);
    CHECK(a.tier_copies[c].tier == b.tier_copies[c].tier);
    CHECK(a.tier_copies[c].bytes == b.tier_copies[c].bytes);
    CHECK(a.tier_copies[c].opened_by == b.tier_copies[c].opened_by);
    CHECK(a.tier_copies[c].closed_by == b.tier_copies[c].closed_by);
    CHECK(a.tier_copies[c].offset_bytes == b.tier_copies[c].offset_bytes);
  }
  CHECK(a.layout.offset_bytes == b.layout.offset_bytes);
  CHECK(a.layout.arena_bytes == b.layout.arena_bytes);
  CHECK(a.layout.live_peak_bytes == b.layout.live_peak_bytes);
  CHECK(a.layout.live_peak_step == b.layout.live_peak_step);
  CHECK(a.layout.algorithm == b.layout.algorithm);
  CHECK(a.layout.alignment_bytes == b.layout.alignment_bytes);
  REQUIRE(a.tier_buffers.size() == b.tier_buffers.size());
  for (size_t t = 0; t < a.tier_buffers.size(); ++t) {
    CHECK(a.tier_buffers[t].tier == b.tier_buffers[t].tier);
    CHECK(a.tier_buffers[t].size_bytes == b.tier_buffers[t].size_bytes);
    CHECK(a.tier_buffers[t].live_peak_bytes == b.tier_buffers[t].live_peak_bytes);
    CHECK(a.tier_buffers[t].alignment_bytes == b.tier_buffers[t].alignment_bytes);
    CHECK(a.tier_buffers[t].algorithm == b.tier_buffers[t].algorithm);
  }
}

void CheckSameDecisions(const Plan& a, const Plan& b) {
  REQUIRE(a.decisions.size() == b.decisions.size());
  for (size_t d = 0; d < a.decisions.size(); ++d) {
    const Decision& x = a.decisions[d];
    const Decision& y = b.decisions[d];
    CHECK(x.value == y.value);
    CHECK(x.gap_after_step == y.gap_after_step);
    CHECK(x.gap_before_step == y.gap_before_step);
    CHECK(x.tier == y.tier);
    CHECK(x.reason == y.reason);
    CHECK(x.detail == y.detail);
    CHECK(x.bytes == y.bytes);
    CHECK(x.gap_ns == y.gap_ns);
    CHECK(x.transfer_ns == y.transfer_ns);
    CHECK(x.freed_first_step == y.freed_first_step);
    CHECK(x.freed_last_step == y.freed_last_step);
    CHECK(x.predicted_stall_ns == y.predicted_stall_ns);
  }
}

void CheckSameTotals(const EvaluatedPlan& planned_a, const EvaluatedPlan& planned_b) {
  const Plan& a = planned_a.plan;
  const Plan& b = planned_b.plan;
  const PlanEvaluation& ea = planned_a.evaluation;
  const PlanEvaluation& eb = planned_b.evaluation;
  CHECK(a.order == b.order);
  CHECK(a.reordered == b.reordered);
  CHECK(a.order_name == b.order_name);
  CHECK(a.offload_enabled == b.offload_enabled);
  CHECK(a.budget_bytes == b.budget_bytes);
  CHECK(ea.fits == eb.fits);
  CHECK(a.node_time_ns == b.node_time_ns);
  CHECK(ea.timeline.stall_ns_per_node == eb.timeline.stall_ns_per_node);
  CHECK(ea.timeline.bytes_moved_per_link == eb.timeline.bytes_moved_per_link);
  CHECK(ea.timeline.peak_bytes_per_tier == eb.timeline.peak_bytes_per_tier);
  CHECK(ea.timeline.makespan_ns == eb.timeline.makespan_ns);
  CHECK(ea.timeline.compute_ns == eb.timeline.compute_ns);
  CHECK(ea.timeline.baseline_makespan_ns == eb.timeline.baseline_makespan_ns);
  CHECK(ea.timeline.stall_ns == eb.timeline.stall_ns);
  const PlanSummary& x = ea.summary;
  const PlanSummary& y = eb.summary;
  CHECK(x.baseline_peak_bytes == y.baseline_peak_bytes);
  CHECK(x.baseline_arena_bytes == y.baseline_arena_bytes);
  CHECK(x.peak_bytes == y.peak_bytes);
  CHECK(x.arena_bytes == y.arena_bytes);
  CHECK(x.live_lower_bound_bytes == y.live_lower_bound_bytes);
  CHECK(x.baseline_makespan_ns == y.baseline_makespan_ns);
  CHECK(x.makespan_ns == y.makespan_ns);
  CHECK(x.stall_ns == y.stall_ns);
  CHECK(x.bytes_moved_per_link == y.bytes_moved_per_link);
  CHECK(x.steps_per_kind == y.steps_per_kind);
  CHECK(x.offloaded_values == y.offloaded_values);
}

}  // namespace

TEST_CASE("plan convert: core -> proto -> core keeps every field but the memory curves") {
  const ChainFixture chain;
  const PlanResult result = chain.Plan();
  const pb::Plan message =
      planio::PlanToProto(chain.graph, chain.profile, result, chain.Provenance());
  const EvaluatedPlan back = BackToCore(message, chain.graph, chain.profile);
  CheckSameSteps(result, back);
  CheckSameMemory(result.plan, back.plan);
  CheckSameDecisions(result.plan, back.plan);
  CheckSameTotals(result, back);
  CHECK(back.evaluation.timeline.bytes_per_tier.empty());  // documented: a replay recomputes them
}

TEST_CASE("plan convert: the recorded profile is the one planned with") {
  ChainFixture chain;
  chain.profile.tiers[0].alignment_bytes = 64;  // recorded per tier, as planned with
  const HardwareProfile recorded = planio::ProfileFromProto(chain.Message(), "plan.pb");
  const HardwareProfile& original = chain.profile;
  CHECK(recorded.name == original.name);
  REQUIRE(recorded.tiers.size() == original.tiers.size());
  for (size_t t = 0; t < recorded.tiers.size(); ++t) {
    CHECK(recorded.tiers[t].name == original.tiers[t].name);
    CHECK(recorded.tiers[t].capacity_bytes == original.tiers[t].capacity_bytes);
    CHECK(recorded.tiers[t].is_device == original.tiers[t].is_device);
    CHECK(recorded.tiers[t].alignment_bytes == original.tiers[t].alignment_bytes);
  }
  CHECK(recorded.tiers[0].alignment_bytes == 64);
  REQUIRE(recorded.links.size() == original.links.size());
  for (size_t l = 0; l < recorded.links.size(); ++l) {
    CHECK(recorded.links[l].from == original.links[l].from);
    CHECK(recorded.links[l].to == original.links[l].to);
    CHECK(recorded.links[l].bandwidth_bytes_per_s == original.links[l].bandwidth_bytes_per_s);
    CHECK(recorded.links[l].latency_ns == original.links[l].latency_ns);
    CHECK(recorded.links[l].channels == original.links[l].channels);
  }
  CHECK(recorded.device_tier == original.device_tier);
  CHECK(recorded.weight_home_tier == original.weight_home_tier);
  CHECK(recorded.compute.peak_flops_per_s == original.compute.peak_flops_per_s);
  CHECK(recorded.compute.memory_bandwidth_bytes_per_s ==
        original.compute.memory_bandwidth_bytes_per_s);
  CHECK(recorded.compute.efficiency_ppm == original.compute.efficiency_ppm);
  CHECK(recorded.compute.kernel_launch_overhead_ns == original.compute.kernel_launch_overhead_ns);
}

TEST_CASE("plan convert: tiers and links match by name, in any order") {
  const ChainFixture chain;
  const pb::Plan message = chain.Message();
  // The same machine listing ddr first: tier ids and link order both change.
  HardwareProfile swapped = chain.profile;
  swapped.tiers = {chain.profile.tiers[1], chain.profile.tiers[0]};
  swapped.device_tier = 1;
  swapped.weight_home_tier = 0;
  swapped.links = {{0, 1, 1'000'000'000, 0, 1}, {1, 0, 1'000'000'000, 0, 1}};  // ddr->hbm first
  const planio::ProfileMapping mapping = planio::MapProfile(message, "plan.pb", swapped);
  CHECK(mapping.tier == std::vector<TierId>{1, 0});
  CHECK(mapping.link == std::vector<int32_t>{-1, 0});  // hbm->ddr unused; ddr->hbm is link 0
  const Plan back = planio::PlanFromProto(message, "plan.pb", chain.graph, swapped, mapping).plan;
  const int prefetch = StepIndex(message, pb::STEP_KIND_PREFETCH, chain.w);
  REQUIRE(prefetch >= 0);
  CHECK(back.steps[prefetch].src_tier == 0);  // ddr here
  CHECK(back.steps[prefetch].dst_tier == 1);
  CHECK(back.steps[prefetch].link == 0);
}

TEST_CASE("plan convert: a profile without a tier or link the plan uses is refused") {
  const ChainFixture chain;
  const pb::Plan message = chain.Message();
  HardwareProfile no_ddr = chain.profile;
  no_ddr.source = "small.yaml";
  no_ddr.tiers[1].name = "nvme";
  Error error = Thrown([&] { planio::MapProfile(message, "plan.pb", no_ddr); });
  CHECK(error.kind() == ErrorKind::kProfile);
  CHECK(std::string(error.what()) == "small.yaml: has no tier 'ddr', which plan.pb uses");

  HardwareProfile one_way = chain.profile;
  one_way.source = "oneway.yaml";
  one_way.links.pop_back();  // no ddr->hbm
  error = Thrown([&] { planio::MapProfile(message, "plan.pb", one_way); });
  CHECK(error.kind() == ErrorKind::kProfile);
  CHECK(std::string(error.what()) == "oneway.yaml: has no link ddr->hbm, which plan.pb uses");

  HardwareProfile other_device = chain.profile;
  other_device.source = "other.yaml";
  other_device.tiers[0].is_device = false;
  other_device.tiers[1].is_device = true;
  other_device.device_tier = 1;
  error = Thrown([&] { planio::MapProfile(message, "plan.pb", other_device); });
  CHECK(error.kind() == ErrorKind::kProfile);
  CHECK_THAT(error.what(), Catch::Contains("device tier is 'ddr'"));
}

TEST_CASE("plan convert: a link with fewer channels is refused, or folded for replays") {
  ChainFixture chain;
  chain.profile.links[1].channels = 2;  // ddr->hbm with two channels
  const pb::Plan message = chain.Message();
  const int prefetch = StepIndex(message, pb::STEP_KIND_PREFETCH, chain.w);
  REQUIRE(prefetch >= 0);
  pb::Plan second_channel = message;
  second_channel.mutable_steps(prefetch)->set_channel(1);
  HardwareProfile single = chain.profile;
  single.links[1].channels = 1;
  single.source = "single.yaml";
  const planio::ProfileMapping mapping = planio::MapProfile(second_channel, "plan.pb", single);
  const Error error = Thrown(
      [&] { planio::PlanFromProto(second_channel, "plan.pb", chain.graph, single, mapping); });
  CHECK(error.kind() == ErrorKind::kProfile);
  CHECK_THAT(error.what(), Catch::Contains("single.yaml: link ddr->hbm has 1 channel(s)"));
  planio::FromProtoOptions fold;
  fold.fold_channels = true;
  const Plan folded =
      planio::PlanFromProto(second_channel, "plan.pb", chain.graph, single, mapping, fold).plan;
  CHECK(folded.steps[prefetch].channel == 0);  // 1 mod 1
}

TEST_CASE("plan convert: names and indices that point nowhere name the field") {
  const ChainFixture chain;
  const pb::Plan message = chain.Message();
  auto convert_error = [&](const pb::Plan& edited) {
    return std::string(Thrown([&] { BackToCore(edited, chain.graph, chain.profile); }).what());
  };
  pb::Plan renamed = message;
  renamed.mutable_values(chain.b)->set_name("not_b");
  CHECK(convert_error(renamed) == "plan.pb: values[2]: 'not_b' is not a value of the model");

  pb::Plan bad_wait = message;
  bad_wait.mutable_steps(0)->add_waits_for(999);  // n0 waits for nothing else
  CHECK_THAT(convert_error(bad_wait),
             Catch::Contains("steps[0].waits_for[0]: 999 is not an index into steps"));

  pb::Plan bad_value = message;
  const int prefetch = StepIndex(message, pb::STEP_KIND_PREFETCH, chain.w);
  bad_value.mutable_steps(prefetch)->set_value(-7);
  CHECK_THAT(convert_error(bad_value), Catch::Contains(".value: -7 is not an index into values"));

  pb::Plan bad_kind = message;
  bad_kind.mutable_steps(0)->set_kind(pb::STEP_KIND_UNSPECIFIED);
  CHECK_THAT(convert_error(bad_kind), Catch::Contains("steps[0].kind: unknown step kind 0"));

  pb::Plan fewer_nodes = message;
  fewer_nodes.mutable_nodes()->RemoveLast();
  CHECK_THAT(convert_error(fewer_nodes), Catch::Contains("the plan has 3 nodes and 5 values, "
                                                         "the model 4 and 5"));
}

TEST_CASE("plan convert: a plan made for another model is refused by its digest") {
  const pb::Plan message = ChainFixture().Message();
  planio::CheckModelDigest(message, "plan.pb", "chain.onnx", std::string(64, 'a'));
  const Error error = Thrown(
      [&] { planio::CheckModelDigest(message, "plan.pb", "other.onnx", std::string(64, 'b')); });
  CHECK(error.kind() == ErrorKind::kPlanFile);
  CHECK(std::string(error.what()) ==
        "plan.pb: made for another model: it was planned for sha256 aaaaaaaaaaaaaaaa... "
        "('chain.onnx'), but other.onnx has sha256 bbbbbbbbbbbbbbbb...");
}
