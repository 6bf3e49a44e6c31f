// Rotary frequencies under Hugging Face's rope_scaling variants, on a config small enough to
// work out by hand: rope_dim 8, theta 10000, so the unscaled inverse frequencies are
// 10000^(-2i/8) = 1, 0.1, 0.01, 0.001.
#include "rope_scaling.h"

#include <catch2/catch.hpp>

#include "mla_attention.h"

namespace hyperplan::gen {
namespace {

ModelConfig Small(RopeScaling::Kind kind) {
  ModelConfig c;
  c.head_dim = 8;
  c.rope_theta = 10000.0;
  c.rope_scaling.kind = kind;
  c.rope_scaling.factor = 4.0;
  c.rope_scaling.original_max_positions = 1000;
  return c;
}

TEST_CASE("No scaling and linear scaling", "[generator][rope]") {
  const std::vector<double> plain = InverseFrequencies(Small(RopeScaling::Kind::kNone));
  REQUIRE(plain.size() == 4);
  CHECK(plain[0] == Approx(1.0));
  CHECK(plain[1] == Approx(0.1));
  CHECK(plain[2] == Approx(0.01));
  CHECK(plain[3] == Approx(0.001));
  const std::vector<double> linear = InverseFrequencies(Small(RopeScaling::Kind::kLinear));
  CHECK(linear[1] == Approx(0.025));  // 0.1 / 4
  // Dynamic (NTK) depends on the run's length: the tables keep the plain frequencies.
  CHECK(InverseFrequencies(Small(RopeScaling::Kind::kDynamic))[3] == Approx(0.001));
  CHECK(RopeAttentionFactor(Small(RopeScaling::Kind::kLinear)) == 1.0);
}

TEST_CASE("llama3 scaling keeps high frequencies and divides low ones", "[generator][rope]") {
  ModelConfig c = Small(RopeScaling::Kind::kLlama3);
  c.rope_scaling.low_freq_factor = 1.0;
  c.rope_scaling.high_freq_factor = 4.0;
  const std::vector<double> f = InverseFrequencies(c);
  // Wavelengths 2*pi/f: 6.28 and 62.8 are below 1000 / 4 = 250: kept.
  CHECK(f[0] == Approx(1.0));
  CHECK(f[1] == Approx(0.1));
  // 628.3 lies between 250 and 1000: smooth = (1000 / 628.3 - 1) / (4 - 1) = 0.197183;
  // f = (1 - smooth) * 0.01 / 4 + smooth * 0.01 = 0.00397887.
  CHECK(f[2] == Approx(0.00397887).epsilon(1e-5));
  // 6283 is above 1000: 0.001 / 4.
  CHECK(f[3] == Approx(0.00025));
}

TEST_CASE("YaRN ramps from extrapolation to interpolation", "[generator][rope]") {
  ModelConfig c = Small(RopeScaling::Kind::kYarn);
  // Correction dims: 8 * ln(1000 / (2*pi*r)) / (2 * ln 10000): r = 32 gives 0.697 (floor 0),
  // r = 1 gives 2.202 (ceil 3); the ramp over i is i / 3, clamped.
  const std::vector<double> f = InverseFrequencies(c);
  CHECK(f[0] == Approx(1.0));      // ramp 0: extrapolated (unscaled)
  CHECK(f[1] == Approx(0.075));    // ramp 1/3: 0.1/4 * 1/3 + 0.1 * 2/3
  CHECK(f[2] == Approx(0.005));    // ramp 2/3: 0.01/4 * 2/3 + 0.01 * 1/3
  CHECK(f[3] == Approx(0.00025));  // ramp 1: interpolated, 0.001 / 4
  // Attention factor without mscale: 0.1 * ln 4 + 1 = 1.138629.
  CHECK(RopeAttentionFactor(c) == Approx(1.138629).epsilon(1e-6));
  // With DeepSeek's mscale = mscale_all_dim = 1 the factor cancels to 1.
  c.rope_scaling.mscale = 1.0;
  c.rope_scaling.mscale_all_dim = 1.0;
  CHECK(RopeAttentionFactor(c) == Approx(1.0));
}

TEST_CASE("Latent attention's softmax scale under YaRN", "[generator][rope]") {
  ModelConfig c;
  c.mla = {1536, 512, 128, 64, 128};
  CHECK(LatentAttentionScale(c) == Approx(0.0721688).epsilon(1e-6));  // 1 / sqrt(128 + 64)
  c.rope_scaling.kind = RopeScaling::Kind::kYarn;
  c.rope_scaling.factor = 40.0;
  c.rope_scaling.mscale_all_dim = 1.0;
  // mscale = 0.1 * ln 40 + 1 = 1.3688879; squared 1.8738543; times 0.0721688 = 0.1352338.
  CHECK(LatentAttentionScale(c) == Approx(0.1352338).epsilon(1e-6));
}

}  // namespace
}  // namespace hyperplan::gen
