// What bounds a plan's iteration (see bottleneck.h).
#include "hyperplan/plan/bottleneck.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <utility>

#include "hyperplan/cost.h"
#include "hyperplan/host_cost.h"
#include "hyperplan/units.h"

namespace hyperplan {
namespace {

// "FLOPs", "HBM traffic" or "launches": the compute stream's bounds (a link names itself).
std::string_view ComputeBoundName(BoundKind kind) {
  // Indexed by BoundKind, in its declaration order.
  static constexpr std::string_view kNames[] = {"FLOPs", "HBM traffic", "launches", "host memory",
                                                "host FLOPs"};
  return kNames[static_cast<size_t>(kind)];
}

// Adds one compute step of `duration_ns` to the three parts of the compute stream's work.
void SplitNodeTime(const NodeCost& cost, int64_t duration_ns, Bottleneck& bottleneck) {
  const int64_t launch_ns = std::min(cost.launch_ns, duration_ns);
  bottleneck.launch_ns += launch_ns;
  (cost.compute_ns > cost.memory_ns ? bottleneck.flops_ns : bottleneck.hbm_traffic_ns) +=
      duration_ns - launch_ns;
}

void SplitComputeStream(const Graph& graph, const HardwareProfile& profile, const Plan& plan,
                        const SimulationResult& timeline, Bottleneck& bottleneck) {
  for (size_t i = 0; i < plan.steps.size() && i < timeline.steps.size(); ++i) {
    const PlanStep& step = plan.steps[i];
    if (step.kind != StepKind::kCompute || step.node < 0 ||
        static_cast<size_t>(step.node) >= graph.nodes.size()) {
      continue;
    }
    const int64_t duration_ns = timeline.steps[i].end_ns - timeline.steps[i].start_ns;
    if (step.unit == ComputeUnit::kHost) {
      const NodeCost host = EstimateHostNodeCost(graph, graph.nodes[step.node], profile);
      (host.compute_ns > host.memory_ns ? bottleneck.host_flops_ns : bottleneck.host_memory_ns) +=
          duration_ns;
      continue;
    }
    SplitNodeTime(EstimateNodeCost(graph, graph.nodes[step.node], profile), duration_ns,
                  bottleneck);
  }
  bottleneck.compute_busy_ns =
      bottleneck.flops_ns + bottleneck.hbm_traffic_ns + bottleneck.launch_ns;
  bottleneck.compute_wait_ns =
      std::max<int64_t>(0, timeline.makespan_ns - bottleneck.compute_busy_ns);
}

// The largest bound: FLOPs, HBM traffic, launches, then each link; the first wins a tie.
void PickLargest(Bottleneck& bottleneck) {
  const std::pair<BoundKind, int64_t> compute[] = {
      {BoundKind::kFlops, bottleneck.flops_ns},
      {BoundKind::kHbmTraffic, bottleneck.hbm_traffic_ns},
      {BoundKind::kLaunches, bottleneck.launch_ns},
      {BoundKind::kHostMemory, bottleneck.host_memory_ns},
      {BoundKind::kHostFlops, bottleneck.host_flops_ns}};
  bottleneck.kind = BoundKind::kHbmTraffic;
  bottleneck.busy_ns = -1;
  for (const auto& [kind, busy_ns] : compute) {
    if (busy_ns > bottleneck.busy_ns) {
      bottleneck.kind = kind;
      bottleneck.busy_ns = busy_ns;
    }
  }
  for (size_t l = 0; l < bottleneck.link_busy_ns.size(); ++l) {
    if (bottleneck.link_busy_ns[l] > bottleneck.busy_ns) {
      bottleneck.kind = BoundKind::kLink;
      bottleneck.link = static_cast<int32_t>(l);
      bottleneck.busy_ns = bottleneck.link_busy_ns[l];
    }
  }
}

std::string LinkName(const HardwareProfile& profile, size_t link) {
  const Link& entry = profile.links[link];
  return profile.tiers[entry.from].name + "->" + profile.tiers[entry.to].name;
}

// Every share but the bottleneck's, largest first (ties: the order listed), the waits last.
std::vector<std::pair<std::string, int64_t>> OtherShares(const HardwareProfile& profile,
                                                         const Bottleneck& bottleneck) {
  std::vector<std::pair<std::string, int64_t>> shares = {
      {std::string(ComputeBoundName(BoundKind::kFlops)), bottleneck.flops_ns},
      {std::string(ComputeBoundName(BoundKind::kHbmTraffic)), bottleneck.hbm_traffic_ns},
      {std::string(ComputeBoundName(BoundKind::kLaunches)), bottleneck.launch_ns},
      {std::string(ComputeBoundName(BoundKind::kHostMemory)), bottleneck.host_memory_ns},
      {std::string(ComputeBoundName(BoundKind::kHostFlops)), bottleneck.host_flops_ns}};
  for (size_t l = 0; l < bottleneck.link_busy_ns.size(); ++l) {
    shares.emplace_back(LinkName(profile, l), bottleneck.link_busy_ns[l]);
  }
  const std::string name = BottleneckName(profile, bottleneck);
  std::erase_if(shares, [&](const auto& share) { return share.first == name; });
  std::stable_sort(shares.begin(), shares.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return shares;
}

}  // namespace

std::vector<int64_t> LinkBusyNs(const HardwareProfile& profile, const Plan& plan,
                                const SimulationResult& timeline) {
  std::vector<int64_t> channel_ns(profile.links.size(), 0);
  for (size_t i = 0; i < plan.steps.size() && i < timeline.steps.size(); ++i) {
    const PlanStep& step = plan.steps[i];
    if (step.kind != StepKind::kPrefetch && step.kind != StepKind::kStore) continue;
    if (step.link < 0 || static_cast<size_t>(step.link) >= channel_ns.size()) continue;
    channel_ns[step.link] += timeline.steps[i].end_ns - timeline.steps[i].start_ns;
  }
  for (size_t l = 0; l < profile.links.size(); ++l) {
    channel_ns[l] /= std::max<int32_t>(1, profile.links[l].channels);
  }
  return channel_ns;
}

Bottleneck FindBottleneck(const Graph& graph, const HardwareProfile& profile, const Plan& plan,
                          const SimulationResult& timeline) {
  Bottleneck bottleneck;
  bottleneck.makespan_ns = timeline.makespan_ns;
  bottleneck.periodic = plan.periodic;
  SplitComputeStream(graph, profile, plan, timeline, bottleneck);
  bottleneck.link_busy_ns = LinkBusyNs(profile, plan, timeline);
  PickLargest(bottleneck);
  return bottleneck;
}

Bottleneck NoOffloadBottleneck(const Graph& graph, const HardwareProfile& profile,
                               const std::vector<int64_t>& node_time_ns, bool periodic) {
  Bottleneck bottleneck;
  bottleneck.periodic = periodic;
  for (size_t n = 0; n < graph.nodes.size() && n < node_time_ns.size(); ++n) {
    SplitNodeTime(EstimateNodeCost(graph, graph.nodes[n], profile), node_time_ns[n], bottleneck);
  }
  bottleneck.compute_busy_ns =
      bottleneck.flops_ns + bottleneck.hbm_traffic_ns + bottleneck.launch_ns;
  bottleneck.makespan_ns = bottleneck.compute_busy_ns;
  bottleneck.link_busy_ns.assign(profile.links.size(), 0);
  PickLargest(bottleneck);
  return bottleneck;
}

std::string BottleneckName(const HardwareProfile& profile, const Bottleneck& bottleneck) {
  if (bottleneck.kind == BoundKind::kLink) {
    return LinkName(profile, static_cast<size_t>(bottleneck.link));
  }
  return std::string(ComputeBoundName(bottleneck.kind));
}

int64_t SharePercent(int64_t part_ns, int64_t whole_ns) {
  if (whole_ns <= 0) return 0;
  return static_cast<int64_t>((static_cast<__int128>(part_ns) * 200 + whole_ns) /
                              (2 * static_cast<__int128>(whole_ns)));
}

std::string DescribeBottleneck(const HardwareProfile& profile, const Bottleneck& bottleneck) {
  const int64_t makespan_ns = bottleneck.makespan_ns;
  std::vector<std::string> others;
  for (const auto& [name, busy_ns] : OtherShares(profile, bottleneck)) {
    const int64_t percent = SharePercent(busy_ns, makespan_ns);
    if (percent >= 1) others.push_back(fmt::format("{} {}%", name, percent));
  }
  const int64_t wait_percent = SharePercent(bottleneck.compute_wait_ns, makespan_ns);
  std::string rest = fmt::format("{}", fmt::join(others, ", "));
  if (wait_percent >= 1) {
    rest += fmt::format("{}compute waits {}%", rest.empty() ? "" : "; ", wait_percent);
  }
  return fmt::format("{} {}% of the {} {}{}", BottleneckName(profile, bottleneck),
                     SharePercent(bottleneck.busy_ns, makespan_ns), FormatDuration(makespan_ns),
                     bottleneck.periodic ? "iteration" : "run",
                     rest.empty() ? std::string() : " (" + rest + ")");
}

}  // namespace hyperplan
