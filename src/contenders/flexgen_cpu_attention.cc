// FlexGen's CPU attention (see flexgen_cpu_attention.h).
#include "contenders/flexgen_cpu_attention.h"

#include <fmt/format.h>

#include <vector>

#include "hyperplan/layers.h"
#include "hyperplan/planner/host_parts.h"

namespace hyperplan::contenders {

PlacementResult FlexGenCpuAttentionPlan(const ContenderContext& context,
                                        std::optional<int64_t> budget) {
  PlacementResult out;
  if (!context.profile->host_compute.present()) {
    out.note = "the profile has no host unit";
    return out;
  }
  HostPartOptions cores;
  cores.attention_cores = true;
  std::vector<NodeId> host_nodes;
  for (const HostPart& part : FindHostParts(context, cores)) {
    if (part.kind != HostPartKind::kAttentionCore) continue;
    host_nodes.insert(host_nodes.end(), part.nodes.begin(), part.nodes.end());
    ++out.host_pieces;
  }
  out.pieces = FindWeightLayers(*context.graph, context.order).count();
  if (out.host_pieces == 0) {
    out.note = "not built: no layer's attention over a KV cache can run on the host";
    return out;
  }
  out.result = PlanPlacement(context, HostUnitsFor(*context.graph, host_nodes),
                             context.EffectiveBudget(budget), "FlexGen CPU attention");
  out.note = fmt::format("attention over the KV cache of {}/{} layers on the CPU", out.host_pieces,
                         out.pieces);
  out.built = true;
  return out;
}

}  // namespace hyperplan::contenders
