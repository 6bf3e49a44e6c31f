// Spread order: a key that walks positions 0..count-1 in bit-reversed order of their fraction
// (0, 1/2, 1/4, 3/4, 1/8, ...: van der Corput order), so that any prefix of identical things
// sorted by it is spread evenly over the range. The candidates' wrap-around ranking spreads
// streamed layers this way, so that streamed and resident layers alternate and each fetch has
// other work to hide behind (the host placement tried it for its parts and lost:
// host_placement.cc RankParts).
// Cost: O(32) per key.
#pragma once

#include <cstdint>

namespace hyperplan::planner {

// `x`'s 32 bits in reverse order: 0, 1/2, 1/4, 3/4, 1/8, ... of the range map to 0, 1, 2, 3, 4.
inline uint32_t BitReverse32(uint32_t x) {
  uint32_t reversed = 0;
  for (int bit = 0; bit < 32; ++bit) reversed |= ((x >> bit) & 1u) << (31 - bit);
  return reversed;
}

// The spread key of `position` among `count` (position < count): its fraction of the range
// as 32 bits, bit-reversed.
inline uint32_t SpreadKey(int64_t position, int64_t count) {
  const uint64_t fraction = (static_cast<uint64_t>(position) << 32) / static_cast<uint64_t>(count);
  return BitReverse32(static_cast<uint32_t>(fraction));
}

}  // namespace hyperplan::planner
