// `hyperplan simulate` (see simulate_command.h).
//
// The plan's steps, waits and streams are kept; what changes is the machine: node times come
// from the new profile's roofline, transfers from its links (a link with fewer channels runs
// the plan's extra channels on its own in turn). So the report answers "what if this plan ran
// there": the makespan, the stalls where transfers no longer hide, and whether the arena and
// off-device copies still fit. It gates like `plan`, so "does this plan still hold on that
// machine" is one CI line: exit 6 when a tier's peak (the device's arena) exceeds its capacity,
// 7 when the replay's slowdown exceeds the overhead target (--max-overhead here, else the one
// the plan was made with when its maker set it), after the report is printed.
#include "simulate_command.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hyperplan/cost.h"
#include "hyperplan/error.h"
#include "hyperplan/plan/simulate.h"
#include "hyperplan/units.h"
#include "plan_gate.h"
#include "plan_inputs.h"
#include "subcommand.h"

namespace hyperplan::cli {
namespace {

// "+12.5%" of the no-offload time, to a tenth of a percent (rounded up).
std::string Slowdown(int64_t makespan_ns, int64_t baseline_ns) {
  const int64_t tenths = (OverheadPpm(makespan_ns, baseline_ns) + 999) / 1000;
  return "+" + std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + "%";
}

std::string FoldedChannels(const PlanInputs& inputs) {
  std::string text;
  const auto& message = inputs.message;
  for (int l = 0; l < message.links_size(); ++l) {
    int32_t highest = -1;
    for (const auto& step : message.steps()) {
      if (step.link() == l) highest = std::max(highest, step.channel());
    }
    if (highest < 0) continue;
    const auto& link = message.links(l);
    const TierId from = inputs.profile.FindTier(message.tiers(link.from_tier()).name());
    const TierId to = inputs.profile.FindTier(message.tiers(link.to_tier()).name());
    const Link* here = inputs.profile.FindLink(from, to);
    const int32_t channels = std::max<int32_t>(1, here->channels);
    if (highest < channels) continue;
    text += "  channels folded: the plan uses " + std::to_string(highest + 1) + " channels of " +
            inputs.profile.tiers[from].name + "->" + inputs.profile.tiers[to].name +
            ", which has " + std::to_string(channels) + " here; their transfers take turns\n";
  }
  return text;
}

struct SimulateFlags {
  PlanInputFlags inputs;
  std::string max_overhead;  // --max-overhead PCT; empty: the plan's own target, if set
};

// The overhead the replay is gated on: the flag, else the plan's own when its maker set one.
std::optional<int64_t> OverheadTarget(const SimulateFlags& flags, const plan::v1::Plan& plan) {
  if (!flags.max_overhead.empty()) return ParseOverheadPpm(flags.max_overhead);
  const plan::v1::Options& options = plan.provenance().options();
  if (options.max_overhead_given()) return options.max_overhead_ppm();
  return std::nullopt;
}

// The gate: capacity first (a plan that does not fit cannot run at all), then overhead.
GateOutcome ReplayGate(const SimulateFlags& flags, const PlanInputs& inputs,
                       const SimulationResult& replay,
                       const std::vector<std::string>& over_capacity) {
  const std::string subject = flags.inputs.plan_path + " on '" + inputs.profile.name + "'";
  if (!over_capacity.empty()) {
    GateOutcome gate;
    gate.passed = false;
    gate.kind = ErrorKind::kInfeasible;
    gate.result = "over_budget";
    gate.message = subject + ": " + over_capacity.front();
    if (over_capacity.size() > 1) {
      gate.message += " (and " + std::to_string(over_capacity.size() - 1) + " more tiers)";
    }
    return gate;
  }
  const std::optional<int64_t> target = OverheadTarget(flags, inputs.message);
  return EvaluateOverhead(subject + ": the replay", replay.makespan_ns, replay.baseline_makespan_ns,
                          target.value_or(0), target.has_value());
}

// "planned on ...: makespan ..." and "here: makespan ...", each against its no-offload time.
std::string MakespanLines(const PlanInputs& inputs, const SimulationResult& replay) {
  const int64_t planned_makespan_ns = inputs.message.summary().makespan_ns();
  const int64_t planned_baseline_ns = inputs.message.summary().baseline_makespan_ns();
  std::string out = "  planned on '" + inputs.message.provenance().profile().name() +
                    "': makespan " + FormatDuration(planned_makespan_ns) + " (" +
                    Slowdown(planned_makespan_ns, planned_baseline_ns) + " over no-offload " +
                    FormatDuration(planned_baseline_ns) + ")\n";
  out += "  here: makespan " + FormatDuration(replay.makespan_ns) + " (" +
         Slowdown(replay.makespan_ns, replay.baseline_makespan_ns) + " over no-offload " +
         FormatDuration(replay.baseline_makespan_ns) + ")\n";
  return out;
}

// "stall: ... over N nodes (longest: ...)".
std::string StallLine(const Graph& graph, const SimulationResult& replay) {
  int64_t stalled_nodes = 0;
  NodeId worst = kNoNode;
  for (size_t n = 0; n < replay.stall_ns_per_node.size(); ++n) {
    if (replay.stall_ns_per_node[n] <= 0) continue;
    ++stalled_nodes;
    if (worst == kNoNode || replay.stall_ns_per_node[n] > replay.stall_ns_per_node[worst]) {
      worst = static_cast<NodeId>(n);
    }
  }
  std::string out = "  stall: " + FormatDuration(replay.stall_ns) + " over " +
                    std::to_string(stalled_nodes) + " nodes";
  if (worst != kNoNode) {
    out += " (longest: '" + graph.nodes[worst].name + "' waits " +
           FormatDuration(replay.stall_ns_per_node[worst]) + ")";
  }
  return out + "\n";
}

// Each tier's peak against its capacity (the device's arena too); the tiers over it are
// added to `over_capacity`, for the gate.
std::string TierLines(const PlanInputs& inputs, const SimulationResult& replay,
                      std::vector<std::string>& over_capacity) {
  const HardwareProfile& profile = inputs.profile;
  std::string out;
  for (size_t t = 0; t < profile.tiers.size(); ++t) {
    const int64_t peak = replay.peak_bytes_per_tier[t];
    const int64_t capacity = profile.tiers[t].capacity_bytes;
    if (peak == 0 && static_cast<TierId>(t) != profile.device_tier) continue;
    out += "  " + profile.tiers[t].name + ": peak " + FormatBytes(peak);
    if (static_cast<TierId>(t) == profile.device_tier) {
      out += ", arena " + FormatBytes(inputs.plan.layout.arena_bytes);
    }
    const int64_t needed = static_cast<TierId>(t) == profile.device_tier
                               ? std::max(peak, inputs.plan.layout.arena_bytes)
                               : peak;
    if (capacity <= 0 || needed <= capacity) {
      out += ", fits in " + FormatBytes(capacity) + "\n";
      continue;
    }
    out += ", OVER its capacity of " + FormatBytes(capacity) + "\n";
    over_capacity.push_back(profile.tiers[t].name + " needs " + FormatBytes(needed) +
                            ", over its capacity of " + FormatBytes(capacity));
  }
  return out;
}

// Bytes moved on each link that carried any.
std::string LinkLines(const HardwareProfile& profile, const SimulationResult& replay) {
  std::string out;
  for (size_t l = 0; l < profile.links.size(); ++l) {
    if (replay.bytes_moved_per_link[l] == 0) continue;
    const Link& link = profile.links[l];
    out += "  " + profile.tiers[link.from].name + "->" + profile.tiers[link.to].name + ": " +
           FormatBytes(replay.bytes_moved_per_link[l]) + " moved at " +
           FormatBandwidth(link.bandwidth_bytes_per_s) + "\n";
  }
  return out;
}

void RunSimulate(const SimulateFlags& simulate_flags) {
  const PlanInputFlags& flags = simulate_flags.inputs;
  PlanInputs inputs = LoadPlanInputs(flags, /*fold_channels=*/true);
  const HardwareProfile& profile = inputs.profile;
  EstimateNodeTimes(inputs);
  const SimulationResult replay = Simulate(inputs.graph, profile, inputs.plan);

  std::vector<std::string> over_capacity;
  std::string out =
      "replay of " + flags.plan_path + " on '" + profile.name + "' [" + profile.source + "]\n";
  out += MakespanLines(inputs, replay);
  out += StallLine(inputs.graph, replay);
  out += TierLines(inputs, replay, over_capacity);
  out += LinkLines(profile, replay);
  out += FoldedChannels(inputs);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  const GateOutcome gate = ReplayGate(simulate_flags, inputs, replay, over_capacity);
  if (!gate.passed) throw Error(gate.kind, gate.message);
  SayRecordedProfile(inputs);
}

}  // namespace

void AddSimulateCommand(CLI::App& app) {
  const auto [command, flags] = AddSubcommand<SimulateFlags>(
      app, "simulate",
      "Replay a plan file on a hardware profile (--hw; default the plan's own): new makespan and "
      "stalls; gate like plan (exit 6 over capacity, 7 over the overhead target)",
      RunSimulate);
  AddPlanInputFlags(*command, flags->inputs);
  command
      ->add_option("--max-overhead", flags->max_overhead,
                   "allowed slowdown of the replay over its no-offload makespan, in percent; "
                   "above it exits 7 (default: the plan's own --max-overhead, if it had one)")
      ->check(CLI::Validator(ValidateOverheadText, "PCT", "overhead"));
}

}  // namespace hyperplan::cli
