// ZeRO-Offload's CPU optimizer step (see zero_offload.h).
#include "contenders/zero_offload.h"

#include <fmt/format.h>

#include <vector>

#include "contenders/decoder_pieces.h"

namespace hyperplan::contenders {

PlacementResult ZeroOffloadPlan(const ContenderContext& context, std::optional<int64_t> budget) {
  PlacementResult out;
  if (!context.profile->host_compute.present()) {
    out.note = "the profile has no host unit";
    return out;
  }
  std::vector<NodeId> host_nodes;
  for (const std::vector<NodeId>& update : OptimizerUpdates(context)) {
    host_nodes.insert(host_nodes.end(), update.begin(), update.end());
    ++out.pieces;
  }
  if (out.pieces == 0) {
    out.note = "not built: the graph updates no parameter in place";
    return out;
  }
  if (!HomedOnHost(context, host_nodes)) {
    out.note = "not built: some parameter or optimizer state is not homed on the host tier";
    return out;
  }
  out.host_pieces = out.pieces;
  out.result = PlanPlacement(context, HostUnitsFor(*context.graph, host_nodes),
                             context.EffectiveBudget(budget), "ZeRO-Offload");
  out.note = fmt::format("Adam of {} parameters on the CPU", out.pieces);
  out.built = true;
  return out;
}

}  // namespace hyperplan::contenders
