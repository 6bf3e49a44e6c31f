// FlexGen's CPU attention (see flexgen_cpu_attention.h).
#include "contenders/flexgen_cpu_attention.h"

#include <fmt/format.h>

#include <vector>

#include "contenders/decoder_pieces.h"

namespace hyperplan::contenders {

PlacementResult FlexGenCpuAttentionPlan(const ContenderContext& context,
                                        std::optional<int64_t> budget) {
  PlacementResult out;
  if (!context.profile->host_compute.present()) {
    out.note = "the profile has no host unit";
    return out;
  }
  std::vector<NodeId> host_nodes;
  const std::vector<DecoderLayer> layers = FindDecoderLayers(context);
  out.pieces = static_cast<int>(layers.size());
  for (const DecoderLayer& layer : layers) {
    const std::vector<NodeId> core = AttentionCore(context, layer);
    if (core.empty()) continue;
    host_nodes.insert(host_nodes.end(), core.begin(), core.end());
    ++out.host_pieces;
  }
  if (out.host_pieces == 0) {
    out.note = "not built: no layer's attention reads a KV cache";
    return out;
  }
  if (!HomedOnHost(context, host_nodes)) {
    out.note = "not built: some layer's KV cache is not homed on the host tier";
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
