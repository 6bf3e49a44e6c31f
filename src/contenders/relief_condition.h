// A transfer condition of the host-aware bound (host_lower_bound.h) with its own relief per part:
// T >= (bytes - sum_p x_p relief_bytes[p]) / bytes_per_s for every placement x of the parts
// (x_p = 1: part p on the host). The timed terms (host_write_back.h, host_late_fetch.h) take this
// form: a compute time C before or after the transfer joins `bytes` as C * bytes_per_s.
#pragma once

#include <cstdint>
#include <vector>

#include "hyperplan/lifetimes.h"

namespace hyperplan::contenders {

struct ReliefCondition {
  int64_t bytes = 0;
  int64_t bytes_per_s = 0;
  std::vector<int64_t> relief_bytes;  // by part
  Step step = -1;                     // the step the condition was taken at
};

// The running sums of a difference array over steps 0..n-1 (`deltas` has n + 1 entries: a run
// [first, last] adds at first and subtracts at last + 1), the per-step totals the timed terms
// rank their steps by.
inline std::vector<int64_t> RunningSums(const std::vector<int64_t>& deltas, size_t n) {
  std::vector<int64_t> sums(n, 0);
  int64_t running = 0;
  for (size_t s = 0; s < n; ++s) sums[s] = running += deltas[s];
  return sums;
}

// C * bytes_per_s in bytes, rounded down (a smaller constant only lowers the condition).
inline int64_t ComputeAsBytes(int64_t compute_ns, int64_t bytes_per_s) {
  return static_cast<int64_t>(static_cast<__int128>(compute_ns) * bytes_per_s / 1'000'000'000);
}

}  // namespace hyperplan::contenders
