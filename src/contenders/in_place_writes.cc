// The in-place writes a Store carries home (see in_place_writes.h).
#include "contenders/in_place_writes.h"

#include <algorithm>

namespace hyperplan::contenders {

std::vector<InPlaceWrite> InPlaceWrites(const Graph& graph, const LifetimeAnalysis& lifetimes,
                                        const DeviceRoutes& routes, const ValueHomes& homes,
                                        const std::vector<uint8_t>& persistent) {
  std::vector<InPlaceWrite> writes;
  if (persistent.empty()) return writes;
  for (size_t id = 0; id < graph.values.size(); ++id) {
    const Value& value = graph.values[id];
    if (!persistent[id] || value.written_by == kNoNode || value.written_bytes <= 0) continue;
    const auto value_id = static_cast<ValueId>(id);
    if (!homes.Homed(value_id)) continue;
    const auto& route = routes.from_device[homes.home_tier[id]];
    if (!route || route->empty()) continue;
    writes.push_back({value_id, lifetimes.step_of_node[value.written_by],
                      std::min(value.written_bytes, value.bytes), route->front()});
  }
  return writes;
}

}  // namespace hyperplan::contenders
