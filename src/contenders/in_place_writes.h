// The persistent values a loop updates in place (loop.h) that a Store must carry home: for the
// device-only bound's write-back term (lower_bounds.h) and the host-aware bound's form of it
// (host_write_back.h).
// A persistent value with a writer (Value::written_by) and a home tier reachable from the device
// counts, by the bytes its writer changes (at most its own), at its writer's step in `lifetimes`.
// Cost: O(values). Limits: one writer per value (loop.h's in-place aliases).
#pragma once

#include <cstdint>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/homes.h"
#include "hyperplan/lifetimes.h"
#include "hyperplan/routes.h"

namespace hyperplan::contenders {

// A persistent value its writer updates in place: the bytes that change, the step that writes
// them and the device hop that carries them home.
struct InPlaceWrite {
  ValueId value = kNoValue;
  Step write_step = 0;
  int64_t written_bytes = 0;
  int32_t out_link = -1;
};

// The in-place writes of `graph` (`persistent` by ValueId; empty: none), in ValueId order.
std::vector<InPlaceWrite> InPlaceWrites(const Graph& graph, const LifetimeAnalysis& lifetimes,
                                        const DeviceRoutes& routes, const ValueHomes& homes,
                                        const std::vector<uint8_t>& persistent);

}  // namespace hyperplan::contenders
