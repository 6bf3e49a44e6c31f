// The CI summary of a plan run (see run_summary.h).
#include "run_summary.h"

#include "hyperplan/attention_pattern.h"
#include "planio/plan_file.h"

namespace hyperplan::cli {

void RecordPlan(const plan::v1::Plan& plan, const std::string& plan_sha256,
                plan::v1::RunSummary& summary) {
  const plan::v1::Summary& numbers = plan.summary();
  summary.set_planned(true);
  summary.set_profile(plan.provenance().profile().name());
  if (plan.has_budget_bytes()) summary.set_budget_bytes(plan.budget_bytes());
  summary.set_arena_bytes(numbers.arena_bytes());
  summary.set_live_lower_bound_bytes(numbers.live_lower_bound_bytes());
  summary.set_peak_bytes(numbers.peak_bytes());
  summary.set_baseline_peak_bytes(numbers.baseline_peak_bytes());
  summary.set_makespan_ns(numbers.makespan_ns());
  summary.set_baseline_makespan_ns(numbers.baseline_makespan_ns());
  summary.set_overhead_ppm(OverheadPpm(numbers.makespan_ns(), numbers.baseline_makespan_ns()));
  summary.set_max_overhead_ppm(plan.provenance().options().max_overhead_ppm());
  summary.set_stall_ns(numbers.stall_ns());
  summary.set_prefetch_steps(numbers.prefetch_steps());
  summary.set_store_steps(numbers.store_steps());
  summary.set_detach_steps(numbers.detach_steps());
  int64_t moved = 0;
  for (const plan::v1::LinkTraffic& link : numbers.links()) moved += link.bytes_moved();
  summary.set_bytes_moved(moved);
  summary.set_plan_sha256(plan_sha256);
  summary.set_periodic(plan.periodic());
  summary.set_produced_by(plan.produced_by());
  summary.set_cold_start_ns(plan.cold_start().time_ns());
  for (const plan::v1::TierBytes& entry : plan.cold_start().tiers()) {
    if (entry.tier() >= 0 && entry.tier() < plan.tiers_size() &&
        plan.tiers(entry.tier()).is_device()) {
      summary.set_cold_start_device_bytes(entry.bytes());
    }
  }
}

void RecordBottleneck(const HardwareProfile& profile, const Bottleneck& bottleneck,
                      plan::v1::RunSummary& summary) {
  RecordBottleneckShares(profile, bottleneck, summary);
  for (size_t l = 0; l < bottleneck.link_busy_ns.size(); ++l) {
    if (bottleneck.link_busy_ns[l] == 0) continue;
    const Link& link = profile.links[l];
    plan::v1::LinkBusyTime* entry = summary.add_link_busy();
    entry->set_link(profile.tiers[link.from].name + "->" + profile.tiers[link.to].name);
    entry->set_busy_ns(bottleneck.link_busy_ns[l]);
  }
}

void RecordAttention(const Graph& graph, const HardwareProfile& profile,
                     plan::v1::RunSummary& summary) {
  const auto blocks = static_cast<int64_t>(FindAttentionBlocks(graph).size());
  summary.set_attention_blocks(blocks);
  summary.set_attention_fused(blocks > 0 && profile.compute.fuse_attention);
}

void RecordGate(const GateOutcome& gate, plan::v1::RunSummary& summary) {
  if (!gate.passed) {
    RecordFailure(gate.kind, gate.message, summary);
  } else {
    summary.set_ok(true);
    summary.set_exit_code(0);
    summary.clear_error_kind();
    summary.clear_message();
  }
  summary.set_result(gate.result);
  summary.set_overhead_ppm(gate.overhead_ppm);
}

void RecordFailure(ErrorKind kind, const std::string& message, plan::v1::RunSummary& summary) {
  summary.set_ok(false);
  summary.set_result("error");
  summary.set_exit_code(ExitCode(kind));
  summary.set_error_kind(std::string(ErrorKindName(kind)));
  summary.set_message(message);
}

std::string SummaryLine(const plan::v1::RunSummary& summary) {
  return planio::EncodeJson(summary, /*pretty=*/false) + "\n";
}

}  // namespace hyperplan::cli
