// Plan totals and their text form (see summary.h).
#include "hyperplan/plan/summary.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>
#include <tuple>

#include "hyperplan/attention_pattern.h"
#include "hyperplan/names.h"
#include "hyperplan/plan/bottleneck.h"
#include "hyperplan/plan/host_placement.h"
#include "hyperplan/plan/layer_summary.h"
#include "hyperplan/units.h"

namespace hyperplan {
namespace {

// "+1.5%" / "-33.3%" from integers, rounded half away from zero to one decimal.
std::string Percent(int64_t delta, int64_t base) {
  if (base <= 0) return "n/a";
  const __int128 tenths_x2 = static_cast<__int128>(delta) * 2000 / base;
  const int64_t tenths = static_cast<int64_t>((tenths_x2 + (tenths_x2 >= 0 ? 1 : -1)) / 2);
  const int64_t magnitude = std::llabs(tenths);
  // Streamed rather than concatenated: GCC 12's -Wrestrict misfires on string operator+.
  std::ostringstream text;
  text << (delta < 0 ? '-' : '+') << magnitude / 10 << '.' << magnitude % 10 << '%';
  return text.str();
}

}  // namespace

PlanSummary SummarizePlan(const HardwareProfile& profile, const Plan& plan,
                          const SimulationResult& timeline, int64_t baseline_peak_bytes,
                          int64_t baseline_arena_bytes) {
  PlanSummary summary;
  summary.baseline_peak_bytes = baseline_peak_bytes;
  summary.baseline_arena_bytes = baseline_arena_bytes;
  const auto device = static_cast<size_t>(profile.device_tier);
  if (device < timeline.peak_bytes_per_tier.size()) {
    summary.peak_bytes = timeline.peak_bytes_per_tier[device];
  }
  summary.arena_bytes = plan.layout.arena_bytes;
  summary.live_lower_bound_bytes = plan.layout.live_peak_bytes;
  summary.baseline_makespan_ns = timeline.baseline_makespan_ns;
  summary.makespan_ns = timeline.makespan_ns;
  summary.stall_ns = timeline.stall_ns;
  summary.bytes_moved_per_link = timeline.bytes_moved_per_link;
  for (const PlanStep& step : plan.steps) ++summary.steps_per_kind[static_cast<size_t>(step.kind)];
  std::vector<ValueId> offloaded;
  for (const Decision& decision : plan.decisions) {
    if (decision.reason == DecisionReason::kOffloaded) offloaded.push_back(decision.value);
  }
  std::sort(offloaded.begin(), offloaded.end());
  summary.offloaded_values = std::unique(offloaded.begin(), offloaded.end()) - offloaded.begin();
  return summary;
}

namespace {

// "  loop: ..., cold start ... on hbm + ... on ddr, ... before the first iteration"
std::string FormatColdStart(const HardwareProfile& profile, const Plan& plan,
                            const PlanEvaluation& evaluation) {
  std::ostringstream out;
  const size_t fed_back = plan.aliases.size();
  out << "  loop: one iteration, ends as it began ("
      << (fed_back == 0   ? std::string("no output feeds back")
          : fed_back == 1 ? std::string("1 output feeds back in place")
                          : std::to_string(fed_back) + " outputs feed back in place")
      << "); cold start";
  bool any = false;
  for (size_t tier = 0; tier < evaluation.cold_start.bytes_per_tier.size(); ++tier) {
    if (evaluation.cold_start.bytes_per_tier[tier] == 0) continue;
    out << (any ? " + " : " ") << FormatBytes(evaluation.cold_start.bytes_per_tier[tier]) << " on "
        << TierName(profile, static_cast<TierId>(tier));
    any = true;
  }
  if (!any) out << " nothing";
  out << ", " << FormatDuration(evaluation.cold_start.time_ns) << " before the first iteration\n";
  return out.str();
}

}  // namespace

namespace {

// "plan for ...", the budget (or why none), who produced the plan and its order.
void FormatHeading(const Graph& graph, const HardwareProfile& profile, const Plan& plan,
                   const PlanEvaluation& evaluation, std::ostringstream& out) {
  out << "plan for '" << graph.name << "' on '" << profile.name << "'\n";
  if (!plan.offload_enabled) {
    out << "  offloading: off (baseline plan)\n";
  } else if (plan.budget_bytes) {
    out << "  budget: " << FormatBytes(*plan.budget_bytes)
        << (evaluation.fits ? " (fits)" : " (does not fit)") << "\n";
  } else {
    out << "  budget: none (largest peak cut within the overhead limit)\n";
  }
  if (!plan.produced_by.empty() && plan.produced_by != "hyperplan") {
    out << "  produced by: " << plan.produced_by
        << " (its verified plan beat the planner's own; it explains no decisions)\n";
  }
  out << "  order: " << (plan.reordered ? plan.order_name + " (reordered)" : "model order") << ", "
      << plan.order.size() << " nodes\n";
}

// Device peak and arena before and after, then each tier buffer.
void FormatMemory(const HardwareProfile& profile, const Plan& plan,
                  const PlanEvaluation& evaluation, std::ostringstream& out) {
  const PlanSummary& s = evaluation.summary;
  out << "  device peak: " << FormatBytes(s.baseline_peak_bytes) << " -> "
      << FormatBytes(s.peak_bytes) << " ("
      << Percent(s.peak_bytes - s.baseline_peak_bytes, s.baseline_peak_bytes) << ")\n";
  // No algorithm where nothing was laid out (a graph of no nodes).
  const std::string algorithm = plan.layout.algorithm.empty() ? "" : plan.layout.algorithm + ", ";
  out << "  arena: " << FormatBytes(s.baseline_arena_bytes) << " -> " << FormatBytes(s.arena_bytes)
      << " (live-bytes lower bound " << FormatBytes(s.live_lower_bound_bytes) << ", " << algorithm
      << plan.layout.alignment_bytes << "-byte aligned)\n";
  if (plan.tier_buffers.empty()) return;
  out << "  tier buffers:";
  for (size_t b = 0; b < plan.tier_buffers.size(); ++b) {
    const TierBuffer& buffer = plan.tier_buffers[b];
    out << (b == 0 ? " " : ", ") << TierName(profile, buffer.tier) << " "
        << FormatBytes(buffer.size_bytes);
  }
  out << "\n";
}

// "  compute units: device 3.0 ms (stall 10 us), host 1.2 ms in 18 nodes (stall 0 ns)", only
// for a plan that computes on the host: each unit's node times and the stalls of its steps
// (simulate.cc: waits for transfers, not for the other unit).
void FormatComputeUnits(const Plan& plan, const PlanEvaluation& evaluation,
                        std::ostringstream& out) {
  const std::array<UnitTimes, 2> units = TimesPerUnit(plan, evaluation.timeline);
  const UnitTimes& device = units[0];
  const UnitTimes& host = units[1];
  if (host.nodes == 0) return;
  out << "  compute units: device " << FormatDuration(device.compute_ns) << " (stall "
      << FormatDuration(device.stall_ns) << "), host " << FormatDuration(host.compute_ns) << " in "
      << host.nodes << (host.nodes == 1 ? " node" : " nodes") << " (stall "
      << FormatDuration(host.stall_ns) << ")\n";
}

// Time before and after (per iteration for a loop, with its cold start), bytes per link and
// cache ops per kind.
void FormatTimeAndTraffic(const HardwareProfile& profile, const Plan& plan,
                          const PlanEvaluation& evaluation, std::ostringstream& out) {
  const PlanSummary& s = evaluation.summary;
  out << (plan.periodic ? "  time per iteration: " : "  makespan: ")
      << FormatDuration(s.baseline_makespan_ns) << " -> " << FormatDuration(s.makespan_ns) << " ("
      << Percent(s.makespan_ns - s.baseline_makespan_ns, s.baseline_makespan_ns) << "), stall "
      << FormatDuration(s.stall_ns) << "\n";
  if (plan.periodic) out << FormatColdStart(profile, plan, evaluation);
  FormatComputeUnits(plan, evaluation, out);
  out << "  bytes moved:";
  bool any_moved = false;
  for (size_t l = 0; l < s.bytes_moved_per_link.size(); ++l) {
    if (s.bytes_moved_per_link[l] == 0) continue;
    const Link& link = profile.links[l];
    out << (any_moved ? ", " : " ") << TierName(profile, link.from) << "->"
        << TierName(profile, link.to) << " " << FormatBytes(s.bytes_moved_per_link[l]);
    any_moved = true;
  }
  out << (any_moved ? "\n" : " none\n");
  out << "  cache ops: " << s.steps_per_kind[static_cast<size_t>(StepKind::kPrefetch)]
      << " prefetch, " << s.steps_per_kind[static_cast<size_t>(StepKind::kStore)] << " store, "
      << s.steps_per_kind[static_cast<size_t>(StepKind::kDetach)] << " detach\n";
}

// The `top_decisions` largest offloads (bytes x freed steps first; then value id and gap for
// a stable listing), then a count of the rejections per reason.
void FormatDecisions(const Graph& graph, const HardwareProfile& profile, const Plan& plan,
                     const PlanEvaluation& evaluation, int top_decisions, std::ostringstream& out) {
  std::vector<const Decision*> taken;
  std::map<DecisionReason, int64_t> not_taken;
  for (const Decision& decision : plan.decisions) {
    if (decision.reason == DecisionReason::kOffloaded) {
      taken.push_back(&decision);
    } else {
      ++not_taken[decision.reason];
    }
  }
  auto weight = [](const Decision* d) {
    return static_cast<__int128>(d->bytes) * (d->freed_last_step - d->freed_first_step + 1);
  };
  std::sort(taken.begin(), taken.end(), [&](const Decision* a, const Decision* b) {
    if (weight(a) != weight(b)) return weight(a) > weight(b);
    return std::tie(a->value, a->gap_after_step) < std::tie(b->value, b->gap_after_step);
  });
  out << "  offloaded: " << taken.size() << " gaps of " << evaluation.summary.offloaded_values
      << " values\n";
  const size_t shown = std::min(taken.size(), static_cast<size_t>(std::max(0, top_decisions)));
  for (size_t i = 0; i < shown; ++i) {
    const Decision& d = *taken[i];
    out << "    " << (i + 1) << ". " << QuotedValueName(graph, d.value) << " ("
        << ValueClassName(graph.values[d.value].value_class) << ", " << FormatBytes(d.bytes)
        << ") to " << TierName(profile, d.tier) << ": " << d.detail << "\n";
  }
  if (not_taken.empty()) return;
  out << "  not offloaded:";
  bool first = true;
  for (const auto& [reason, count] : not_taken) {
    out << (first ? " " : ", ") << count << " " << DecisionReasonName(reason);
    first = false;
  }
  out << "\n";
}

}  // namespace

std::string FormatPlanSummary(const Graph& graph, const HardwareProfile& profile, const Plan& plan,
                              const PlanEvaluation& evaluation, int top_decisions) {
  std::ostringstream out;
  FormatHeading(graph, profile, plan, evaluation, out);
  FormatMemory(profile, plan, evaluation, out);
  FormatTimeAndTraffic(profile, plan, evaluation, out);
  out << "  residency: " << DescribeLayerResidency(graph, profile, plan) << "\n";
  out << "  bottleneck: "
      << DescribeBottleneck(profile, FindBottleneck(graph, profile, plan, evaluation.timeline))
      << "\n";
  // Which cost the spelled-out attention blocks got (attention_pattern.h); none, no line.
  if (std::string attention = DescribeAttentionCosting(graph, profile); !attention.empty()) {
    out << "  attention: " << attention << "\n";
  }
  FormatDecisions(graph, profile, plan, evaluation, top_decisions, out);
  return out.str();
}

}  // namespace hyperplan
