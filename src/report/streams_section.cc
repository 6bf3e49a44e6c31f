// One lane per stream: compute (with its stalls and Detaches under it), the host lane when a
// step runs on the host (with its own stalls), and every link channel that carries a
// transfer, all on the memory chart's time axis.
#include <fmt/format.h>

#include "hyperplan/units.h"
#include "report/lane_chart.h"
#include "report/markup.h"
#include "report/names.h"
#include "report/sections.h"
#include "report/streams.h"

namespace hyperplan::report {
namespace {

constexpr int kComputeLanePx = 22;
constexpr int kThinLanePx = 10;
constexpr int kCopyLanePx = 18;

std::string Span(const StepTiming& timing) {
  return fmt::format("{} to {} ({})", FormatDuration(timing.start_ns),
                     FormatDuration(timing.end_ns),
                     FormatDuration(timing.end_ns - timing.start_ns));
}

// The tooltip of a step's bar; stall lane bars describe the compute step that waited.
std::string DescribeStep(const ReportInput& input, int32_t index) {
  const PlanStep& step = input.plan.steps[index];
  const StepTiming timing = static_cast<size_t>(index) < input.evaluation.timeline.steps.size()
                                ? input.evaluation.timeline.steps[index]
                                : StepTiming{};
  switch (step.kind) {
    case StepKind::kCompute: {
      const auto& stalls = input.evaluation.timeline.stall_ns_per_node;
      const int64_t stall_ns =
          step.node >= 0 && static_cast<size_t>(step.node) < stalls.size() ? stalls[step.node] : 0;
      return fmt::format("step {}: {} ({}){}, {}{}", step.boundary,
                         NodeName(input.graph, step.node), NodeOpType(input.graph, step.node),
                         step.unit == ComputeUnit::kHost ? " on the host" : "", Span(timing),
                         stall_ns > 0 ? ", waited " + FormatDuration(stall_ns) : "");
    }
    case StepKind::kDetach:
      return fmt::format("detach {} from {} at {}", ValueName(input.graph, step.value),
                         TierName(input.profile, step.src_tier), FormatDuration(timing.start_ns));
    case StepKind::kPrefetch:
    case StepKind::kStore:
      return fmt::format("{} {} ({}) {} to {}, {}", StepKindName(step.kind),
                         ValueName(input.graph, step.value), FormatBytes(step.bytes),
                         TierName(input.profile, step.src_tier),
                         TierName(input.profile, step.dst_tier), Span(timing));
  }
  return "";
}

Lane MakeLane(const PlanEvaluation& evaluation, std::string label, std::string css_class,
              int height_px, const std::vector<int32_t>& steps) {
  Lane lane;
  lane.label = std::move(label);
  lane.css_class = std::move(css_class);
  lane.height_px = height_px;
  lane.items = StepIntervals(evaluation, steps);
  lane.ids = steps;
  return lane;
}

// The waits before `compute_steps` that stalled, as a thin lane under their unit's lane.
void AddStallLane(const Plan& plan, const PlanEvaluation& evaluation,
                  const std::vector<int32_t>& compute_steps, std::string label,
                  std::vector<Lane>& lanes) {
  Stalls stalls = CollectStalls(plan, evaluation, compute_steps);
  if (stalls.steps.empty()) return;
  Lane lane;
  lane.label = std::move(label);
  lane.css_class = "stall";
  lane.height_px = kThinLanePx;
  lane.items = std::move(stalls.intervals);
  lane.ids = std::move(stalls.steps);
  lanes.push_back(std::move(lane));
}

}  // namespace

std::string StreamsSection(const ReportInput& input) {
  const Plan& plan = input.plan;
  const PlanEvaluation& evaluation = input.evaluation;
  const PlanStreams streams = CollectStreams(input.profile, plan);
  std::vector<Lane> lanes;
  lanes.push_back(
      MakeLane(evaluation, "compute", "compute", kComputeLanePx, streams.compute_steps));

  AddStallLane(plan, evaluation, streams.compute_steps, "stalled", lanes);
  if (!streams.detach_steps.empty()) {
    lanes.push_back(MakeLane(evaluation, "detach", "detach", kThinLanePx, streams.detach_steps));
  }
  if (!streams.host_steps.empty()) {
    lanes.push_back(MakeLane(evaluation, HostLaneName(input.profile), "host", kComputeLanePx,
                             streams.host_steps));
    AddStallLane(plan, evaluation, streams.host_steps, "host stalled", lanes);
  }
  for (const CopyStream& stream : streams.copy_streams) {
    Lane lane = MakeLane(evaluation, stream.name, "copy", kCopyLanePx, stream.steps);
    // A link is usually one kind (towards the device: prefetch), but a staging hop can carry
    // both; each bar takes its own kind's colour, a density band its first step's.
    for (int32_t step : stream.steps) {
      lane.item_classes.emplace_back(StepKindName(plan.steps[step].kind));
    }
    lane.css_class = lane.item_classes.front();
    lanes.push_back(std::move(lane));
  }

  std::string html = "<section id=\"streams\">\n<h2>Streams</h2>\n";
  html +=
      "<div class=\"legend\"><span><i class=\"key compute\"></i>compute</span>"
      "<span><i class=\"key stall\"></i>stalled (waiting for a transfer)</span>"
      "<span><i class=\"key detach\"></i>detach</span>"
      "<span><i class=\"key prefetch\"></i>prefetch</span>"
      "<span><i class=\"key store\"></i>store</span>" +
      std::string(
          streams.host_steps.empty() ? "" : "<span><i class=\"key host\"></i>host compute</span>") +
      "</div>\n";
  html += "<figure>" +
          RenderLaneChart(
              lanes, input.columns, [&input](int32_t step) { return DescribeStep(input, step); },
              "compute and copy streams over simulated time") +
          "</figure>\n";
  html += fmt::format(
      "<p class=\"note-text\">A lane with more than {} items is drawn as density: the darker a "
      "pixel, the larger the share of its time slice the stream is busy. Hover a bar for its "
      "step.{}</p>\n",
      kMaxBarsPerLane,
      streams.idle_copy_streams > 0
          ? fmt::format(" {} idle copy stream{} not shown.", streams.idle_copy_streams,
                        streams.idle_copy_streams == 1 ? "" : "s")
          : std::string());
  html += "</section>";
  return html;
}

}  // namespace hyperplan::report
