// The word behind every byte pattern (byte_pattern.h), in a header of its own so the CUDA
// backend's fill and check kernels (src/cuda/) compute the very same bytes on the device as
// FillPattern and FindMismatch do on the host: one definition, callable from both.
// Cost: one multiply-xorshift per 8 bytes. Limits: none beyond byte_pattern.h's.
#pragma once

#include <cstdint>

#ifdef __CUDACC__
#define HYPERPLAN_HOST_DEVICE __host__ __device__
#else
#define HYPERPLAN_HOST_DEVICE
#endif

namespace hyperplan::executor {

// splitmix64's finaliser over (value, version, word index): cheap and well mixed.
HYPERPLAN_HOST_DEVICE inline uint64_t PatternWord(int32_t value, int64_t version, int64_t word) {
  uint64_t x = (static_cast<uint64_t>(static_cast<uint32_t>(value)) << 40) ^
               (static_cast<uint64_t>(version) << 20) ^ static_cast<uint64_t>(word);
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Byte j of a value of `bytes` bytes whose last `tail_bytes` carry `version` (the rest 0).
HYPERPLAN_HOST_DEVICE inline uint8_t PatternByte(int32_t value, int64_t version, int64_t bytes,
                                                 int64_t tail_bytes, int64_t j) {
  const int64_t byte_version = j >= bytes - tail_bytes ? version : 0;
  return static_cast<uint8_t>(PatternWord(value, byte_version, j / 8) >> (8 * (j % 8)));
}

}  // namespace hyperplan::executor
