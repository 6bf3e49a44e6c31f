// The contenders comparison (see compare_bench.h).
#include "compare_bench.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <optional>

#include "bench_profiles.h"
#include "budgets.h"
#include "contenders.h"
#include "contenders/context.h"
#include "contenders/host_lower_bound.h"
#include "contenders/lower_bounds.h"
#include "contenders/moe_offload.h"
#include "format.h"
#include "goals.h"
#include "hyperplan/adapters/onnx_import.h"
#include "hyperplan/error.h"
#include "model_cache.h"
#include "planio/plan_digest.h"
#include "planio/plan_to_proto.h"
#include "workloads.h"

namespace hyperplan::bench {
namespace {

bool Selected(const std::string& text, const std::vector<std::string>& filters) {
  if (filters.empty()) return true;
  return std::any_of(filters.begin(), filters.end(),
                     [&](const std::string& f) { return text.find(f) != std::string::npos; });
}

void Emit(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

ImportOptions DimsOf(const Workload& workload, const HardwareProfile& profile) {
  ImportOptions options;
  for (const std::string& dim : workload.dims) {
    const size_t eq = dim.find('=');
    options.dims[dim.substr(0, eq)] = std::stoll(dim.substr(eq + 1));
  }
  options.class_rules = profile.class_rules;
  return options;
}

std::string LinkBytes(const HardwareProfile& profile, const PlanEvaluation& evaluation) {
  std::string text;
  const auto& moved = evaluation.timeline.bytes_moved_per_link;
  for (size_t l = 0; l < moved.size() && l < profile.links.size(); ++l) {
    if (moved[l] == 0) continue;
    const Link& link = profile.links[l];
    if (!text.empty()) text += ", ";
    text += fmt::format("{}→{} {}", profile.tiers[link.from].name, profile.tiers[link.to].name,
                        Gigabytes(moved[l]));
  }
  return text.empty() ? "none" : text;
}

// What the bound forces through the device's links, and the link that binds.
std::string BoundTraffic(const HardwareProfile& profile, const contenders::LowerBounds& bound) {
  std::string text = fmt::format("must move in {}, out {}", Gigabytes(bound.must_fetch_bytes),
                                 Gigabytes(bound.must_store_bytes));
  auto link_name = [&](int32_t link, const char* all) {
    if (link < 0) return std::string(all);
    const Link& l = profile.links[link];
    return fmt::format("{}→{}", profile.tiers[l.from].name, profile.tiers[l.to].name);
  };
  if (bound.makespan_ns > bound.compute_ns && bound.cut.ns == bound.makespan_ns &&
      bound.cut.ns > std::max({bound.transfer_ns, bound.late_fetch.ns, bound.write_back.ns})) {
    text += fmt::format(
        "; bound by the cut at step {}: {} stored before it, then {} fetched after it, over "
        "the device's links each way",
        bound.cut.step, Gigabytes(bound.cut.store_bytes), Gigabytes(bound.cut.fetch_bytes));
  } else if (bound.makespan_ns > bound.compute_ns &&
             bound.write_back.ns > std::max(bound.transfer_ns, bound.late_fetch.ns)) {
    text += fmt::format(
        "; bound by {} sending out {} (stored before step {}, or updated in place since its "
        "last pass) in what {} of compute from step {} to the first update leaves",
        link_name(bound.write_back.link, "the device's out-links together"),
        Gigabytes(bound.write_back.bytes), bound.write_back.step,
        Duration(bound.write_back.compute_ns), bound.write_back.step);
  } else if (bound.makespan_ns > bound.compute_ns && bound.late_fetch.ns > bound.transfer_ns) {
    text += fmt::format("; bound by {} after step {} ({} read later, after {} of compute)",
                        link_name(bound.late_fetch.link, "the device's links together"),
                        bound.late_fetch.step, Gigabytes(bound.late_fetch.bytes),
                        Duration(bound.late_fetch.compute_ns));
  } else if (bound.makespan_ns > bound.compute_ns && bound.bottleneck_link >= 0) {
    text += fmt::format("; bound by {} ({})", link_name(bound.bottleneck_link, ""),
                        Gigabytes(bound.must_move_bytes_per_link[bound.bottleneck_link]));
  } else if (bound.makespan_ns > bound.compute_ns) {
    text += "; bound by the device's links together";
  }
  return text;
}

double OverheadPercent(int64_t makespan_ns, int64_t reference_ns) {
  return 100.0 * (static_cast<double>(makespan_ns) / static_cast<double>(reference_ns) - 1.0);
}

std::string Row(const std::string& budget, const std::string& name, const Outcome& outcome,
                const HardwareProfile& profile, int64_t reference_ns, int64_t bound_ns) {
  if (!outcome.ok) {
    return fmt::format("| {} | {} | {} | | | | | | |\n", budget, name, outcome.note);
  }
  const Plan& plan = outcome.plan;
  const int64_t makespan = outcome.evaluation.timeline.makespan_ns;
  std::string fits = outcome.fits ? "yes" : "**no**";
  if (!outcome.note.empty()) fits += " (" + outcome.note + ")";
  // The bound holds for plans within the budget; a plan over it may well beat it. One that fits
  // and beats it proves the bound wrong: the run stops rather than print a ratio below 1.
  if (outcome.fits && makespan < bound_ns) {
    throw Error(ErrorKind::kInternal,
                fmt::format("{} at budget {}: its plan ({}) beats the lower bound ({}): a bound "
                            "term does not hold for it",
                            name, budget, Duration(makespan), Duration(bound_ns)));
  }
  const std::string ratio =
      outcome.fits ? Ratio(static_cast<double>(makespan) / static_cast<double>(bound_ns)) : "—";
  return fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", budget, name, fits,
                     Gigabytes(plan.layout.live_peak_bytes), Gigabytes(plan.layout.arena_bytes),
                     Duration(makespan), SignedPercent(OverheadPercent(makespan, reference_ns)),
                     ratio, LinkBytes(profile, outcome.evaluation));
}

// " (851 GB exist at step 7423; the tiers off the device hold 512 GB)" when capacity sets the
// peak floor, else empty.
std::string CapacityNote(const contenders::LowerBounds& bound) {
  if (bound.host_capacity_bytes < 0 || bound.capacity_floor_bytes < bound.peak_floor_bytes) {
    return {};
  }
  return fmt::format(" ({} exist at step {}; the tiers off the device hold {})",
                     Gigabytes(bound.most_existing_bytes), bound.most_existing_step,
                     Gigabytes(bound.host_capacity_bytes));
}

// The sha256 of a cell's plan as `hyperplan plan -o` would write it (default provenance), or
// why there is none.
std::string PlanDigest(const Graph& graph, const HardwareProfile& profile, const Outcome& outcome) {
  if (!outcome.ok) return "none: " + outcome.note;
  PlanResult result;
  static_cast<EvaluatedPlan&>(result) = outcome;
  return planio::PlanSha256(planio::PlanToProto(graph, profile, result, {}));
}

std::string DigestLine(const Workload& workload, const NamedProfile& named,
                       const std::string& budget, const std::string& policy, const Graph& graph,
                       const Outcome& outcome) {
  return fmt::format("{} | {} | {} | {} | {}\n", workload.label, named.file, budget, policy,
                     PlanDigest(graph, named.profile, outcome));
}

// Busy time per lane of a plan: the device's compute, the host's, and each device link's
// bytes over its bandwidth (what tells which resource a plan is short of).
std::string LaneBusy(const HardwareProfile& profile, const Outcome& outcome) {
  const SimulationResult& timeline = outcome.evaluation.timeline;
  std::string text =
      fmt::format("device {}, host {}", Duration(timeline.compute_ns - timeline.host_compute_ns),
                  Duration(timeline.host_compute_ns));
  const auto& moved = timeline.bytes_moved_per_link;
  for (size_t l = 0; l < moved.size() && l < profile.links.size(); ++l) {
    const Link& link = profile.links[l];
    if (moved[l] == 0 || link.bandwidth_bytes_per_s <= 0) continue;
    const auto busy_ns = static_cast<int64_t>(static_cast<double>(moved[l]) * 1e9 /
                                              static_cast<double>(link.bandwidth_bytes_per_s));
    text += fmt::format(", {}→{} {}", profile.tiers[link.from].name, profile.tiers[link.to].name,
                        Duration(busy_ns));
  }
  return text;
}

// The bound with host compute (host_lower_bound.h) and the row that shows it beside the
// device-only one: the relaxation's placement, how far the PCIe streaming bound is above
// hyperplan's plan, and hyperplan's busy time per lane.
std::string HostBoundRow(const std::string& budget, const HardwareProfile& profile,
                         const contenders::HostAwareBound& host, int64_t device_bound_ns,
                         const Outcome& planned, int64_t reference_ns) {
  std::string text =
      fmt::format("{} parts{}, {}{}; at the relaxation's optimum {:.1f} on the host, {} freed",
                  host.part_count, host.attention_cores ? " (attention cores)" : "",
                  host.chain ? "a dependency chain" : "not a chain",
                  host.relief_binds        ? " (a write-back, late-fetch or cut term binds)"
                  : host.routed_lane_binds ? " (fetch after route on it binds)"
                                           : "",
                  host.host_parts, Gigabytes(host.freed_bytes));
  if (host.split_count >= 0) {
    text +=
        fmt::format("; whole parts ({}): at most {} on the host {}, at least {} {}",
                    HostPartKindName(static_cast<HostPartKind>(host.split_class)), host.split_count,
                    Duration(host.at_most_ns), host.split_count + 1, Duration(host.at_least_ns));
  }
  if (host.spill_binds) {
    text += fmt::format("; the spill past the compute tiers binds: {} in from the far tiers",
                        Gigabytes(host.spill_bytes));
  }
  if (planned.ok) {
    const double speedup = static_cast<double>(device_bound_ns) /
                           static_cast<double>(planned.evaluation.timeline.makespan_ns);
    text += fmt::format("; hyperplan {} faster than the device-only bound; its lanes busy: {}",
                        Ratio(speedup), LaneBusy(profile, planned));
  }
  return fmt::format("| {} | lower bound with host compute | | | | {} | {} | 1.00x | {} |\n",
                     budget, Duration(host.makespan_ns),
                     SignedPercent(OverheadPercent(host.makespan_ns, reference_ns)), text);
}

struct GoalLine {
  GoalInputs inputs;
  GoalVerdicts verdicts;
};

// The bounds a budget's rows are measured against: the device-only bound (the smallest over the
// model's order and every order a plan here runs in: it holds per order) and, with a host unit,
// the bound with host compute. With a host unit every plan here runs some parts on the host or
// none (host_parts.h), so that bound holds for all of them and "× bound" is over it.
struct BudgetBounds {
  contenders::LowerBounds device;
  std::optional<contenders::HostAwareBound> host;
  int64_t ratio_ns = 1;
};

BudgetBounds BoundsAtBudget(const contenders::ContenderContext& context, int64_t budget_bytes,
                            contenders::LowerBounds model_order,
                            const std::vector<std::pair<Contender, Outcome>>& outcomes) {
  BudgetBounds bounds{std::move(model_order), std::nullopt, 1};
  const bool host_unit = context.profile->host_compute.present();
  // The bound for an order holds for the plans whose compute steps follow it, and may count on
  // that (in order: host_lower_bound.h): the model's order's here, each other order a plan here
  // runs in (the planner's with weights prepared early) its own below; the least is shown.
  if (host_unit) {
    bounds.host = contenders::ComputeHostAwareBound(context, bounds.device, /*in_order=*/true);
  }
  std::vector<const std::vector<NodeId>*> orders;
  for (const auto& [contender, outcome] : outcomes) {
    const std::vector<NodeId>& order = outcome.plan.order;
    if (!outcome.ok || order == context.order ||
        std::any_of(orders.begin(), orders.end(), [&](const auto* o) { return *o == order; })) {
      continue;
    }
    orders.push_back(&order);
    const auto own =
        contenders::ComputeLowerBounds(*context.graph, *context.profile, order,
                                       context.node_time_ns, budget_bytes, context.persistent);
    if (host_unit) {
      const auto own_host = contenders::ComputeHostAwareBound(context, own, /*in_order=*/true);
      if (own_host.makespan_ns < bounds.host->makespan_ns) bounds.host = own_host;
    }
    if (own.makespan_ns < bounds.device.makespan_ns) bounds.device = own;
  }
  bounds.ratio_ns =
      std::max<int64_t>(1, host_unit ? bounds.host->makespan_ns : bounds.device.makespan_ns);
  return bounds;
}

// The bound rows of a budget: the device-only bound and, with a host unit, the one with host
// compute.
std::string BoundRows(const std::string& budget, const HardwareProfile& profile,
                      const BudgetBounds& bounds, const Outcome& planned, int64_t reference_ns) {
  const contenders::LowerBounds& bound = bounds.device;
  std::string rows = fmt::format(
      "| {} | {} | | ≥ {} | | {} | {} | {} | {} |\n", budget,
      bounds.host ? "lower bound, device only (PCIe streaming)" : "lower bound",
      Gigabytes(bound.peak_floor_bytes), Duration(bound.makespan_ns),
      SignedPercent(OverheadPercent(bound.makespan_ns, reference_ns)),
      Ratio(static_cast<double>(bound.makespan_ns) / static_cast<double>(bounds.ratio_ns)),
      BoundTraffic(profile, bound));
  if (bounds.host) {
    rows += HostBoundRow(budget, profile, *bounds.host, bound.makespan_ns, planned, reference_ns);
  }
  return rows;
}

// The goal inputs of one budget's outcomes.
BudgetRow GoalRow(const std::string& budget, const BudgetBounds& bounds,
                  const std::vector<std::pair<Contender, Outcome>>& outcomes) {
  BudgetRow goal_row;
  goal_row.budget_label = budget;
  goal_row.bound_makespan_ns = bounds.ratio_ns;
  // G2 counts budgets where the links can hide the device-only bound's traffic; with a host
  // unit it is then held to the bound with host compute, which is no larger.
  goal_row.bound_is_compute = bounds.device.makespan_ns == bounds.device.compute_ns;
  for (const auto& [contender, outcome] : outcomes) {
    if (contender.kind == ContenderKind::kReactive) {
      goal_row.reactive_fits = outcome.ok && outcome.fits;
      goal_row.reactive_makespan_ns = outcome.evaluation.timeline.makespan_ns;
    }
    if (contender.kind == ContenderKind::kHyperplan) {
      goal_row.hyperplan_fits = outcome.ok && outcome.fits;
      goal_row.hyperplan_makespan_ns = outcome.evaluation.timeline.makespan_ns;
    }
  }
  return goal_row;
}

// What one workload on one profile shares across its budgets.
struct PairContext {
  const Workload& workload;
  const NamedProfile& named;
  const contenders::ContenderContext& context;
  int64_t reference_ns = 0;
  bool plan_digests = false;
  bool moe_model = false;  // routed experts the host may run: the MoE contenders join
};

// One budget: every contender's row and the bound rows (or the plans' digests); its goal row.
void EmitBudget(const PairContext& pair, const Budget& budget, GoalInputs& goals) {
  const contenders::ContenderContext& context = pair.context;
  const HardwareProfile& profile = pair.named.profile;
  auto bound =
      contenders::ComputeLowerBounds(*context.graph, profile, context.order, context.node_time_ns,
                                     budget.bytes, context.persistent);
  if (bound.budget_below_floor) {
    if (pair.plan_digests) return;
    Emit(
        fmt::format("| {} | every policy | **no**: below the peak lower bound {}{} | | | | | | |\n",
                    budget.label, Gigabytes(bound.peak_floor_bytes), CapacityNote(bound)));
    goals.budgets.push_back({budget.label});
    return;
  }
  std::vector<std::pair<Contender, Outcome>> outcomes;
  for (const Contender& contender : BudgetContenders(profile, pair.moe_model)) {
    outcomes.push_back({contender, RunContender(contender, context, budget.bytes)});
  }
  const Outcome& planned = outcomes.back().second;
  const BudgetBounds bounds = BoundsAtBudget(context, budget.bytes, std::move(bound), outcomes);
  goals.budgets.push_back(GoalRow(budget.label, bounds, outcomes));
  std::string rows;
  for (const auto& [contender, outcome] : outcomes) {
    rows += pair.plan_digests ? DigestLine(pair.workload, pair.named, budget.label, contender.name,
                                           *context.graph, outcome)
                              : Row(budget.label, contender.name, outcome, profile,
                                    pair.reference_ns, bounds.ratio_ns);
  }
  if (!pair.plan_digests)
    rows += BoundRows(budget.label, profile, bounds, planned, pair.reference_ns);
  Emit(rows);
}

// The no-budget mode's row (the deepest cut within 1% overhead), with its goal inputs.
std::string OverheadModeRow(const PairContext& pair, const Outcome& reference, GoalInputs& goals) {
  const contenders::ContenderContext& context = pair.context;
  const HardwareProfile& profile = pair.named.profile;
  const Outcome overhead_mode =
      RunContender({"hyperplan", ContenderKind::kHyperplan, 0}, context, std::nullopt, 10'000);
  goals.overhead_mode_ok = overhead_mode.ok;
  goals.overhead_mode_fits = overhead_mode.fits;
  if (overhead_mode.ok) {
    goals.overhead_mode_arena_bytes = overhead_mode.plan.layout.arena_bytes;
    goals.overhead_mode_percent =
        OverheadPercent(overhead_mode.evaluation.timeline.makespan_ns, pair.reference_ns);
  }
  if (pair.plan_digests) {
    return DigestLine(pair.workload, pair.named, "none", "no offloading", *context.graph,
                      reference) +
           DigestLine(pair.workload, pair.named, "none", "hyperplan", *context.graph,
                      overhead_mode);
  }
  const auto no_budget_bound = contenders::ComputeLowerBounds(
      *context.graph, profile, overhead_mode.plan.order, context.node_time_ns,
      std::max<int64_t>(overhead_mode.plan.layout.live_peak_bytes, 0), context.persistent);
  // With a host unit, the bound over placements by parts (host_lower_bound.h), for plans in the
  // overhead mode plan's order.
  const int64_t bound_ns =
      profile.host_compute.present()
          ? contenders::ComputeHostAwareBound(context, no_budget_bound, /*in_order=*/true)
                .makespan_ns
          : no_budget_bound.makespan_ns;
  return "| budget | policy | fits | live peak | arena | makespan | vs no offload | × bound | "
         "moved per link |\n|---|---|---|---:|---:|---:|---:|---:|---|\n" +
         Row(reference.evaluation.fits ? "none (≤1% overhead)" : "none (device binds)",
             "**hyperplan**", overhead_mode, profile, pair.reference_ns,
             std::max<int64_t>(1, bound_ns));
}

// One workload on one profile; returns its goal inputs.
GoalInputs RunPair(const Workload& workload, const Graph& graph, const NamedProfile& named,
                   bool plan_digests) {
  const HardwareProfile& profile = named.profile;
  // Every contender plans one iteration of the same loop (docs/design.md invariant 8).
  const LoopSpec loop{true, FindAliases(graph, {})};
  const contenders::ContenderContext context =
      contenders::BuildContenderContext(graph, profile, {}, loop);
  const std::string home_note = SpillNote(profile, context.homes);
  const int64_t capacity = context.device_capacity_bytes();
  const Outcome reference =
      RunContender({"no offloading", ContenderKind::kNoOffload, 0}, context, std::nullopt);
  const PairContext pair{workload,     named,
                         context,      reference.evaluation.timeline.makespan_ns,
                         plan_digests, !contenders::FindRoutedExperts(context).empty()};
  const auto floor = contenders::ComputeLowerBounds(
      *context.graph, profile, context.order, context.node_time_ns, capacity, context.persistent);

  GoalInputs goals;
  goals.workload = workload.label;
  goals.profile = named.file;
  goals.g3_profile = named.file == "supernode.yaml" || named.file == "gh200.yaml";
  goals.reference_arena_bytes = reference.plan.layout.arena_bytes;
  goals.reference_fits = reference.evaluation.fits;

  std::string text =
      fmt::format("\n### {} on {} ({})\n\n", workload.label, named.file, profile.name);
  text += fmt::format(
      "{} nodes. No offloading: live peak {}, arena {}, makespan {} (compute alone){}. "
      "Peak lower bound (largest node working set plus what cannot leave, or what the tiers "
      "off the device cannot hold): {}{}.{}\n\n",
      graph.nodes.size(), Gigabytes(reference.plan.layout.live_peak_bytes),
      Gigabytes(reference.plan.layout.arena_bytes), Duration(pair.reference_ns),
      reference.evaluation.fits
          ? ", fits the device"
          : fmt::format(", **does not fit** the {} device", Gigabytes(capacity)),
      Gigabytes(floor.peak_floor_bytes), CapacityNote(floor),
      home_note.empty() ? std::string() : " Note: " + home_note + ".");
  const std::string overhead_row = OverheadModeRow(pair, reference, goals);
  Emit(plan_digests ? overhead_row : text + overhead_row);
  for (const Budget& budget : StandardBudgets(reference.plan.layout.live_peak_bytes,
                                              reference.plan.layout.arena_bytes, capacity)) {
    EmitBudget(pair, budget, goals);
  }
  return goals;
}

}  // namespace

int RunCompareBench(const CompareOptions& options) {
  if (!options.plan_digests)
    Emit(
        "Simulated with each profile's roofline cost model; every plan passed VerifyPlan. "
        "\"vs no offload\" is the makespan overhead; \"× bound\" the makespan over the lower "
        "bound at that budget; \"fits\" means the arena is within the budget and the device.\n");
  std::vector<NamedProfile> profiles = ShippedProfiles();
  std::vector<GoalLine> lines;
  for (const Workload& workload : CompareWorkloads(options.quick)) {
    if (!Selected(workload.label, options.workloads)) continue;
    const std::string path = EnsureModel(workload, options.models_dir);
    if (!options.plan_digests) {
      Emit(fmt::format("\n## {}\n\n`{}`, dims {}\n", workload.label, path,
                       fmt::join(workload.dims, " ")));
    }
    std::optional<Graph> graph;
    std::vector<NamedProfile> own_profiles = workload.profiles.empty()
                                                 ? std::vector<NamedProfile>{}
                                                 : ShippedProfiles(workload.profiles);
    for (NamedProfile& named : own_profiles) {
      if (!workload.tier.empty())
        SetTierCapacity(named, workload.tier, workload.tier_capacity_bytes);
    }
    for (const NamedProfile& named : workload.profiles.empty() ? profiles : own_profiles) {
      if (!Selected(named.file, options.profiles)) continue;
      if (options.quick && named.file != "h100-sxm.yaml" && named.file != "supernode.yaml") {
        continue;
      }
      // The profile's class rules change classes, so a profile with rules imports anew.
      if (!graph || !named.profile.class_rules.empty()) {
        graph = ImportOnnxModel(path, DimsOf(workload, named.profile));
      }
      GoalInputs inputs = RunPair(workload, *graph, named, options.plan_digests);
      lines.push_back({inputs, EvaluateGoals(inputs)});
    }
  }
  if (options.plan_digests) return 0;
  std::string text =
      "\n## Goals\n\nG1: hyperplan ≥ 2x faster than reactive offloading at equal budget. "
      "G2: within 10% of the makespan lower bound where the links can hide the traffic. "
      "G3: ≥ 26% smaller arena at < 1% overhead on the supernode and GH200 profiles.\n\n"
      "| workload | profile | G1 | G2 | G3 |\n|---|---|---|---|---|\n";
  for (const GoalLine& line : lines) {
    text += fmt::format("| {} | {} | {} | {} | {} |\n", line.inputs.workload, line.inputs.profile,
                        line.verdicts.g1, line.verdicts.g2, line.verdicts.g3);
  }
  Emit(text);
  return 0;
}

}  // namespace hyperplan::bench
