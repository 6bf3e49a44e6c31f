// ZeRO-Offload's CPU optimizer step (see zero_offload.h).
#include "contenders/zero_offload.h"

#include <fmt/format.h>

#include <vector>

#include "hyperplan/planner/host_parts.h"

namespace hyperplan::contenders {

PlacementResult ZeroOffloadPlan(const ContenderContext& context, std::optional<int64_t> budget) {
  PlacementResult out;
  if (!context.profile->host_compute.present()) {
    out.note = "the profile has no host unit";
    return out;
  }
  std::vector<NodeId> host_nodes;
  for (const HostPart& part : FindHostParts(context)) {
    if (part.kind != HostPartKind::kOptimizer) continue;
    host_nodes.insert(host_nodes.end(), part.nodes.begin(), part.nodes.end());
    ++out.pieces;
  }
  if (out.pieces == 0) {
    out.note = "not built: no optimizer update that can run on the host";
    return out;
  }
  out.host_pieces = out.pieces;
  out.result = PlanPlacement(context, HostUnitsFor(*context.graph, host_nodes),
                             context.EffectiveBudget(budget), "ZeRO-Offload");
  out.note = fmt::format("{} optimizer parts on the CPU", out.pieces);
  out.built = true;
  return out;
}

}  // namespace hyperplan::contenders
