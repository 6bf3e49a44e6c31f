// Sampled routings (hyperplan/routing_samples.h): one token picks exactly k distinct experts,
// a profile's never-picked experts are never touched, the mean over routings is routing.h's
// closed form (an independent oracle), and a node's cost under a routing is its roofline with
// that many experts' bytes.
#include "hyperplan/routing_samples.h"

#include <catch2/catch.hpp>

#include "hyperplan/host_cost.h"
#include "hyperplan/routing.h"
#include "support/moe_graphs.h"

namespace hyperplan {
namespace {

using testing::FloatMoe;

MoeRouting Uniform(int64_t experts, int64_t k, int64_t tokens) {
  return MoeRouting{0, experts, k, tokens, {}};
}

double MeanDistinct(const MoeRouting& routing, int64_t routings) {
  int64_t sum = 0;
  for (int64_t i = 0; i < routings; ++i) sum += SampleDistinctExperts(routing, 7, i);
  return static_cast<double>(sum) / static_cast<double>(routings);
}

TEST_CASE("one token touches exactly k distinct experts, in every routing") {
  for (int64_t i = 0; i < 200; ++i) {
    CHECK(SampleDistinctExperts(Uniform(8, 2, 1), 1, i) == 2);
    CHECK(SampleDistinctExperts(Uniform(256, 8, 1), 1, i) == 8);  // DeepSeek-V3 decode
  }
}

TEST_CASE("a profile's cold experts are never touched, its certain ones always") {
  // Top 2 of 6, experts 1 and 4 picked by every token (p = 1), the rest never (p = 0): any
  // number of tokens touches exactly those 2.
  MoeRouting routing = Uniform(6, 2, 5);
  routing.selection_probability = {0, 1, 0, 0, 1, 0};
  for (int64_t i = 0; i < 50; ++i) CHECK(SampleDistinctExperts(routing, 3, i) == 2);
  // Past the token-draw limit (per-expert draws): the same.
  routing.tokens = kTokenDrawLimit;
  for (int64_t i = 0; i < 50; ++i) CHECK(SampleDistinctExperts(routing, 3, i) == 2);
}

TEST_CASE("the mean over routings is the closed-form expectation") {
  // Top 2 of 8, 4 tokens: 8 * (1 - 0.75^4) = 8 * 0.68359 = 5.469. The distinct count lies in
  // [2, 8], so its standard deviation is below 3 and the mean of 20000 routings is within
  // 3 * 3 / sqrt(20000) = 0.064 of it at three standard errors.
  const MoeRouting uniform = Uniform(8, 2, 4);
  CHECK(MeanDistinct(uniform, 20000) == Approx(5.469).margin(0.064));
  CHECK(ExpectedDistinctExperts(8, 2, 4) == Approx(5.469).margin(0.001));
  // A skewed profile, top 2 of 4 (0.9, 0.9, 0.1, 0.1), 2 tokens: 2 * 0.99 + 2 * 0.19 = 2.36
  // (routing_test.cc); the distinct count lies in [2, 4]: within 3 * 2 / sqrt(20000) = 0.043.
  MoeRouting skewed = Uniform(4, 2, 2);
  skewed.selection_probability = {0.9, 0.9, 0.1, 0.1};
  CHECK(MeanDistinct(skewed, 20000) == Approx(2.36).margin(0.043));
  // Per-expert draws past the limit: top 2 of 64 over 1200 tokens (76800 pairs > 65536):
  // 64 * (1 - (62/64)^1200), (62/64)^1200 = e^(1200 ln 0.96875) = e^-38.1: all 64.
  CHECK(MeanDistinct(Uniform(64, 2, 1200), 200) == Approx(64.0));
  // Top 8 of 256 over 300 tokens (76800 pairs): 256 * (1 - (248/256)^300) = 256 * (1 -
  // e^(300 ln 0.96875)) = 256 * (1 - e^-9.525) = 256 * 0.99993 = 255.98; between 252 and 256.
  CHECK(MeanDistinct(Uniform(256, 8, 300), 200) == Approx(255.98).margin(0.1));
}

TEST_CASE("routings are the same for the same seed, and vary with the index") {
  const MoeRouting routing = Uniform(8, 2, 4);
  bool varies = false;
  for (int64_t i = 0; i < 64; ++i) {
    CHECK(SampleDistinctExperts(routing, 11, i) == SampleDistinctExperts(routing, 11, i));
    varies |= SampleDistinctExperts(routing, 11, i) != SampleDistinctExperts(routing, 11, 0);
  }
  CHECK(varies);
}

TEST_CASE("the MoE nodes of a graph, with their profile") {
  Graph graph = FloatMoe(4);
  std::vector<MoeRouting> routings = FindMoeRoutings(graph);
  REQUIRE(routings.size() == 1);
  CHECK(routings[0].experts == 8);
  CHECK(routings[0].experts_per_token == 2);
  CHECK(routings[0].tokens == 4);
  CHECK(routings[0].selection_probability.empty());
  graph.expert_selection["moe"] = {0.5, 0.5, 0.25, 0.25, 0.125, 0.125, 0.125, 0.125};
  CHECK(FindMoeRoutings(graph)[0].selection_probability.size() == 8);
}

TEST_CASE("a node's cost under a routing reads that many experts") {
  const Graph graph = FloatMoe(4);
  HardwareProfile profile = testing::UnitProfile();
  profile.host_compute = testing::UnitHost();
  // 3 experts: x 256 + router 128 + y 256 = 640 B of activations plus 3 * 6144 B of experts
  // (3 matrices of 2048 B each) = 19072 B, 19072 ns at 1 B/ns; FLOPs do not depend on the
  // routing: 2 * 4 tokens * 2 experts * 1536 weights = 24576, 24576 ns at 1 FLOP/ns, so the
  // node is compute-bound on the device.
  const NodeCost device = MoeNodeCostOn(ComputeUnit::kDevice, graph, 0, profile, 3.0);
  CHECK(device.bytes_accessed == 19072);
  CHECK(device.flops == 24576);
  CHECK(device.memory_ns == 19072);
  CHECK(device.compute_ns == 24576);
  const NodeCost host = MoeNodeCostOn(ComputeUnit::kHost, graph, 0, profile, 7.0);
  // 7 experts: 640 + 7 * 6144 = 43648 B, 43648 ns at the host's 1 B/ns: memory-bound.
  CHECK(host.bytes_accessed == 43648);
  CHECK(host.memory_ns == 43648);
  CHECK(host.compute_ns == 24576);
  // At the expectation (8 * (1 - 0.75^4) = 5.469 experts) the answer is the cost model's own.
  const double expected = ExpectedDistinctExperts(8, 2, 4);
  CHECK(MoeNodeCostOn(ComputeUnit::kDevice, graph, 0, profile, expected).time_ns ==
        EstimateNodeCostOn(ComputeUnit::kDevice, graph, graph.nodes[0], profile).time_ns);
  CHECK(MoeNodeCostOn(ComputeUnit::kHost, graph, 0, profile, expected).time_ns ==
        EstimateNodeCostOn(ComputeUnit::kHost, graph, graph.nodes[0], profile).time_ns);
}

}  // namespace
}  // namespace hyperplan
