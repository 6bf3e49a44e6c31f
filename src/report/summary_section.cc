// Every summary number before and after the plan, one row each. Each number cell carries its
// exact integer (data-bytes / data-ns / data-count) and an id, so tools and tests can read the
// page back without parsing the human form.
#include <fmt/format.h>

#include "hyperplan/names.h"
#include "hyperplan/plan/bottleneck.h"
#include "hyperplan/plan/host_placement.h"
#include "hyperplan/units.h"
#include "report/markup.h"
#include "report/sections.h"
#include "report/streams.h"

namespace hyperplan::report {
namespace {

enum class Unit { kBytes, kNs, kCount };

std::string Cell(const std::string& id, Unit unit, int64_t value) {
  const char* attribute = unit == Unit::kBytes ? "data-bytes"
                          : unit == Unit::kNs  ? "data-ns"
                                               : "data-count";
  const std::string text = unit == Unit::kBytes ? FormatBytes(value)
                           : unit == Unit::kNs  ? FormatDuration(value)
                                                : std::to_string(value);
  return fmt::format("<td class=\"num\" id=\"{}\" {}=\"{}\">{}</td>", EscapeMarkup(id), attribute,
                     value, EscapeMarkup(text));
}

std::string Empty() { return "<td class=\"num muted\">&#8212;</td>"; }

// metric | before | after | change
std::string BeforeAfterRow(const std::string& id, const std::string& metric, Unit unit,
                           int64_t before, int64_t after) {
  return fmt::format(
      "<tr><th scope=\"row\">{}</th>{}{}<td class=\"num\" id=\"{}-change\">{}</td></tr>\n",
      EscapeMarkup(metric), Cell(id + "-before", unit, before), Cell(id + "-after", unit, after),
      EscapeMarkup(id), PercentChange(after - before, before));
}

std::string AfterRow(const std::string& id, const std::string& metric, Unit unit, int64_t after,
                     const std::string& note = "") {
  return fmt::format("<tr><th scope=\"row\">{}</th>{}{}<td class=\"muted\">{}</td></tr>\n",
                     EscapeMarkup(metric), Empty(), Cell(id, unit, after), EscapeMarkup(note));
}

// The compute time split by what bounds each node, and the bottleneck (plan/bottleneck.h).
std::string BoundRows(const ReportInput& input) {
  const Bottleneck bound =
      FindBottleneck(input.graph, input.profile, input.plan, input.evaluation.timeline);
  const auto share = [&](int64_t ns) {
    return PercentOf(ns, bound.makespan_ns) + " of the makespan";
  };
  std::string html = AfterRow("bound-flops", "compute bound by FLOPs", Unit::kNs, bound.flops_ns,
                              share(bound.flops_ns));
  html += AfterRow("bound-hbm", "compute bound by HBM traffic", Unit::kNs, bound.hbm_traffic_ns,
                   share(bound.hbm_traffic_ns));
  html += AfterRow("bound-launches", "kernel launches", Unit::kNs, bound.launch_ns,
                   share(bound.launch_ns));
  html += fmt::format(
      "<tr><th scope=\"row\">bottleneck</th>{}<td id=\"bottleneck\" colspan=\"2\">{}</td></tr>\n",
      Empty(), EscapeMarkup(DescribeBottleneck(input.profile, bound)));
  return html;
}

// Each unit's compute and stalls, and what runs on the host, for a plan that computes there
// (issue 30); nothing otherwise.
std::string UnitRows(const ReportInput& input) {
  const std::array<UnitTimes, 2> units = TimesPerUnit(input.plan, input.evaluation.timeline);
  if (units[1].nodes == 0) return "";
  const int64_t makespan_ns = input.evaluation.summary.makespan_ns;
  const auto share = [&](int64_t ns) { return PercentOf(ns, makespan_ns) + " of the makespan"; };
  std::string html = AfterRow("device-compute", "device compute time", Unit::kNs,
                              units[0].compute_ns, share(units[0].compute_ns));
  html += AfterRow("device-stall", "device compute stalled", Unit::kNs, units[0].stall_ns,
                   share(units[0].stall_ns));
  html += AfterRow("host-compute", "host compute time", Unit::kNs,
                   input.evaluation.timeline.host_compute_ns,
                   share(input.evaluation.timeline.host_compute_ns));
  html += AfterRow("host-stall", "host compute stalled", Unit::kNs, units[1].stall_ns,
                   share(units[1].stall_ns));
  html += AfterRow("host-nodes", "nodes on the host", Unit::kCount, units[1].nodes,
                   DescribeHostPlacement(FindHostPlacement(input.graph, input.plan)));
  return html;
}

}  // namespace

std::string SummarySection(const ReportInput& input) {
  const Plan& plan = input.plan;
  const PlanSummary& s = input.evaluation.summary;
  auto ops = [&](StepKind kind) { return s.steps_per_kind[static_cast<size_t>(kind)]; };
  std::string html = "<section id=\"summary\">\n<h2>Summary</h2>\n";
  html +=
      "<table class=\"summary\">\n<thead><tr><th></th><th class=\"num\">before (no offload)"
      "</th><th class=\"num\">after (plan)</th><th class=\"num\">change</th></tr></thead>\n"
      "<tbody>\n";
  html += BeforeAfterRow("peak", "device peak (simulated)", Unit::kBytes, s.baseline_peak_bytes,
                         s.peak_bytes);
  html +=
      BeforeAfterRow("arena", "device arena", Unit::kBytes, s.baseline_arena_bytes, s.arena_bytes);
  html += AfterRow("live-bound", "arena lower bound (live bytes)", Unit::kBytes,
                   s.live_lower_bound_bytes, plan.layout.algorithm);
  html += BeforeAfterRow("makespan", "makespan (simulated)", Unit::kNs, s.baseline_makespan_ns,
                         s.makespan_ns);
  html += AfterRow("stall", "compute stalled", Unit::kNs, s.stall_ns,
                   PercentOf(s.stall_ns, s.makespan_ns) + " of the makespan");
  html += AfterRow("compute", "compute time", Unit::kNs, input.evaluation.timeline.compute_ns);
  html += UnitRows(input);
  html += BoundRows(input);
  for (size_t l = 0; l < s.bytes_moved_per_link.size(); ++l) {
    if (s.bytes_moved_per_link[l] == 0) continue;
    const auto link = static_cast<int32_t>(l);
    std::string note;
    if (l < input.profile.links.size() && input.profile.links[l].bandwidth_bytes_per_s > 0) {
      // Busy time at full link bandwidth: what the link needs at the least, latency aside.
      const __int128 busy_ns = static_cast<__int128>(s.bytes_moved_per_link[l]) * 1'000'000'000 /
                               input.profile.links[l].bandwidth_bytes_per_s;
      note = fmt::format("{} at {}", FormatDuration(static_cast<int64_t>(busy_ns)),
                         FormatBandwidth(input.profile.links[l].bandwidth_bytes_per_s));
    }
    html += AfterRow(fmt::format("moved-{}", l), "moved " + LinkName(input.profile, link),
                     Unit::kBytes, s.bytes_moved_per_link[l], note);
  }
  html += AfterRow("ops-prefetch", "prefetch steps", Unit::kCount, ops(StepKind::kPrefetch));
  html += AfterRow("ops-store", "store steps", Unit::kCount, ops(StepKind::kStore));
  html += AfterRow("ops-detach", "detach steps", Unit::kCount, ops(StepKind::kDetach));
  html += AfterRow("offloaded-values", "values offloaded", Unit::kCount, s.offloaded_values);
  for (size_t t = 0; t < input.evaluation.timeline.peak_bytes_per_tier.size(); ++t) {
    if (static_cast<TierId>(t) == input.profile.device_tier) continue;
    html += AfterRow(fmt::format("tier-peak-{}", t),
                     "peak on " + TierName(input.profile, static_cast<TierId>(t)), Unit::kBytes,
                     input.evaluation.timeline.peak_bytes_per_tier[t]);
  }
  html += "</tbody>\n</table>\n</section>";
  return html;
}

}  // namespace hyperplan::report
