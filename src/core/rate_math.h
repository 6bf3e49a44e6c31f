// Whole-nanosecond rate arithmetic shared by the device and host rooflines (cost.cc,
// host_cost.cc): a time is an amount over a rate, rounded up, so a predicted step never ends
// before its work could. 128-bit intermediates because bytes (to 2^63) times 10^9 times a ppm
// factor overflow 64 bits. Cost: O(1).
#pragma once

#include <cstdint>

namespace hyperplan::rate_math {

inline constexpr __int128 kNsPerS = 1'000'000'000;
inline constexpr __int128 kPpm = 1'000'000;

// ceil(numerator / denominator); 0 when the denominator is not positive (a rate the profile
// does not give costs no time, as a spec built without it).
inline int64_t CeilDiv(__int128 numerator, __int128 denominator) {
  if (denominator <= 0) return 0;
  return static_cast<int64_t>((numerator + denominator - 1) / denominator);
}

}  // namespace hyperplan::rate_math
