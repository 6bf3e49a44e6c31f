// Why no plan fits (see explain.h).
#include "planner/explain.h"

#include <algorithm>
#include <string>
#include <vector>

#include "hyperplan/units.h"

namespace hyperplan::planner {
namespace {

int64_t NodeFloorBytes(const Graph& graph, NodeId node_id) {
  const Node& node = graph.nodes[node_id];
  std::vector<ValueId> values = node.inputs;
  values.insert(values.end(), node.outputs.begin(), node.outputs.end());
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  int64_t bytes = node.subgraph_peak_bytes;
  for (ValueId value : values) bytes += graph.values[value].bytes;
  return bytes;
}

// "weight 793 GiB + kv_cache 40.0 GiB": the home copies in `tier`, by class.
std::string HomedByClass(const Graph& graph, const ValueHomes& homes, TierId tier) {
  int64_t bytes_per_class[kValueClassCount] = {};
  for (size_t id = 0; id < graph.values.size(); ++id) {
    if (homes.home_tier[id] != tier) continue;
    bytes_per_class[static_cast<int>(graph.values[id].value_class)] += graph.values[id].bytes;
  }
  std::string text;
  for (int c = 0; c < kValueClassCount; ++c) {
    if (bytes_per_class[c] == 0) continue;
    if (!text.empty()) text += " + ";
    text += std::string(ValueClassName(static_cast<ValueClass>(c))) + " " +
            FormatBytes(bytes_per_class[c]);
  }
  return text;
}

// "tier 'pool' is full: ..." for every tier whose home copies exceed its capacity (empty when
// none does).
std::string FullTiers(const Graph& graph, const HardwareProfile& profile, const ValueHomes& homes) {
  std::string text;
  for (size_t tier = 0; tier < profile.tiers.size(); ++tier) {
    const Tier& t = profile.tiers[tier];
    const int64_t homed = homes.homed_bytes_per_tier[tier];
    if (static_cast<TierId>(tier) == profile.device_tier || t.capacity_bytes <= 0 ||
        homed <= t.capacity_bytes) {
      continue;
    }
    if (!text.empty()) text += "; ";
    text += "tier '" + t.name + "' is full: its " + FormatBytes(t.capacity_bytes) +
            " cannot hold the " + FormatBytes(homed) + " of home copies (" +
            HomedByClass(graph, homes, static_cast<TierId>(tier)) + "), and the " +
            FormatBytes(homed - t.capacity_bytes) + " over must stay on the device; give '" +
            t.name + "' more capacity or add a tier for them to spill into";
  }
  return text;
}

// "tier 'ddr' needs 245 GiB for the copies it holds at once, over its 238 GiB" for every tier
// buffer of `plan` over its tier's capacity (empty when none is): what keeps a plan whose arena
// fits from fitting.
std::string OverflowingBuffers(const HardwareProfile& profile, const Plan& plan) {
  std::string text;
  for (const TierBuffer& buffer : plan.tier_buffers) {
    if (buffer.tier < 0 || static_cast<size_t>(buffer.tier) >= profile.tiers.size()) continue;
    const Tier& tier = profile.tiers[buffer.tier];
    if (tier.capacity_bytes <= 0 || buffer.size_bytes <= tier.capacity_bytes) continue;
    if (!text.empty()) text += "; ";
    text += "tier '" + tier.name + "' needs " + FormatBytes(buffer.size_bytes) +
            " for the copies it holds at once (home, stored and staging, laid out), over its " +
            FormatBytes(tier.capacity_bytes);
  }
  return text;
}

}  // namespace

Infeasibility ExplainInfeasible(const Graph& graph, const HardwareProfile& profile,
                                const ValueHomes& homes, const Outcome& outcome,
                                int64_t budget_bytes) {
  Infeasibility why;
  const Plan& plan = outcome.plan;
  why.budget_bytes = budget_bytes;
  why.lowest_arena_bytes = plan.layout.arena_bytes;
  const std::string no_fit = "no plan fits the budget of " + FormatBytes(budget_bytes);
  const std::string full_tiers = FullTiers(graph, profile, homes);
  if (plan.order.empty()) {
    why.message = full_tiers.empty() ? no_fit : no_fit + ": " + full_tiers;
    return why;
  }
  const bool stuck = !outcome.selection.reached_target;
  why.lowest_peak_bytes = plan.layout.live_peak_bytes;
  why.blocking_step = stuck && outcome.selection.stuck_step >= 0 ? outcome.selection.stuck_step
                                                                 : plan.layout.live_peak_step;
  why.blocking_node = plan.order[why.blocking_step];
  why.node_floor_bytes = NodeFloorBytes(graph, why.blocking_node);
  int64_t resident_bytes = 0;  // at the blocking step, in the plan reached
  for (const ResidentInterval& interval : plan.residency) {
    if (interval.first_step <= why.blocking_step && why.blocking_step <= interval.last_step) {
      resident_bytes += interval.bytes;
    }
  }
  why.pinned_bytes = std::max<int64_t>(0, resident_bytes - why.node_floor_bytes);
  const std::string node = "step " + std::to_string(why.blocking_step) + " (node '" +
                           graph.nodes[why.blocking_node].name + "')";
  const std::string overflowing = OverflowingBuffers(profile, plan);
  if (!full_tiers.empty()) {
    why.message = no_fit + ": " + full_tiers;
  } else if (why.lowest_arena_bytes <= budget_bytes && !overflowing.empty()) {
    why.message = no_fit + ": the arena fits (" + FormatBytes(why.lowest_arena_bytes) + ") but " +
                  overflowing;
  } else if (stuck) {
    why.message = no_fit + ": " + node + " needs " + FormatBytes(resident_bytes) +
                  " resident: its own inputs and outputs take " +
                  FormatBytes(why.node_floor_bytes) + " and " + FormatBytes(why.pinned_bytes) +
                  " more cannot leave the device then";
  } else {
    why.message = no_fit + ": live bytes fit but the arena needs " +
                  FormatBytes(why.lowest_arena_bytes) + " after layout (peak at " + node + ")";
  }
  return why;
}

}  // namespace hyperplan::planner
