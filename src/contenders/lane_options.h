// The bounds' fractional knapsack (host_lower_bound.cc, routed_lane_bound.cc): options that
// each free bytes off the device at a cost in lane time, taken in order of least lane time per
// byte freed, the last one in part, until the bytes wanted are free. Where any share of an
// option may be taken (the relaxation), that greedy order gives the least lane time.
// Cost: O(n log n) to sort, O(n) a fill. Limits: the caller keeps the options sorted.
#pragma once

#include <algorithm>
#include <vector>

namespace hyperplan::contenders {

struct LaneOption {
  long double cost_ns = 0;      // lane time it adds
  long double freed_bytes = 0;  // bytes it frees (or, relieving the device lane, device ns)
  long double host_parts = 1;   // parts it moves to the host (0: a layer fetched after route)
};

// By lane time per byte freed, least first.
inline void SortByCostPerByte(std::vector<LaneOption>& options) {
  std::sort(options.begin(), options.end(), [](const LaneOption& a, const LaneOption& b) {
    return a.cost_ns * b.freed_bytes < b.cost_ns * a.freed_bytes;
  });
}

// A lane with some options taken: its time, the bytes freed and the parts on the host.
struct LaneFill {
  long double lane_ns = 0;
  long double freed_bytes = 0;
  long double host_parts = 0;
};

// `base` with `sorted`'s options taken in order, the last one in part, until `want` bytes are
// free (or every option is taken).
inline LaneFill FillUntilFreed(LaneFill base, const std::vector<LaneOption>& sorted,
                               long double want) {
  for (const LaneOption& option : sorted) {
    if (base.freed_bytes >= want) break;
    const long double share =
        std::min<long double>(1, (want - base.freed_bytes) / option.freed_bytes);
    base.lane_ns += share * option.cost_ns;
    base.freed_bytes += share * option.freed_bytes;
    base.host_parts += share * option.host_parts;
  }
  return base;
}

}  // namespace hyperplan::contenders
