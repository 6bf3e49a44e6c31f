// Deterministic pseudo-random numbers for generated weights and runner-independent tests:
// SplitMix64 streams keyed by (seed, tensor name), so a tensor's values depend on its name and
// the seed only, never on the order in which tensors are made.
// Cost: a few integer operations per value. Limits: not cryptographic; floats carry 24 random
// bits and are uniform only (no normal distribution).
#pragma once

#include <cstdint>
#include <string_view>

namespace hyperplan::gen {

class Prng {
 public:
  explicit Prng(uint64_t state) : state_(state) {}

  uint64_t Next() {
    state_ += 0x9E3779B97F4A7C15ull;
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  // Uniform in [-bound, bound).
  float Uniform(float bound) {
    const float unit = static_cast<float>(Next() >> 40) * (1.0f / 16777216.0f);
    return (2.0f * unit - 1.0f) * bound;
  }

 private:
  uint64_t state_;
};

// The stream start for `key` under `seed`: FNV-1a of the key, mixed with the seed.
inline uint64_t StreamSeed(uint64_t seed, std::string_view key) {
  uint64_t hash = 0xCBF29CE484222325ull;
  for (char c : key) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001B3ull;
  }
  return hash ^ (seed * 0x9E3779B97F4A7C15ull);
}

}  // namespace hyperplan::gen
