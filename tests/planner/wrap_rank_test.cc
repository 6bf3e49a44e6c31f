// How wrap-around gaps rank (candidates.h): a persistent value's leading and trailing halves
// rank by the whole wrap-around gap, and identical layers are spread over the iteration in
// bit-reversed order of where they are first read. Unit rates (planner_support.h): every
// number is worked out beside its assertion.
#include <algorithm>
#include <catch2/catch.hpp>
#include <vector>

#include "hyperplan/loop.h"
#include "planner/context.h"
#include "planner_support.h"

using namespace hyperplan;
using namespace hyperplan::planner_test;

namespace {

// Eight identical layers: n<i> reads weight w<i> (10 B, home ddr) and the activation before
// it, 10 ns each, so step i reads w<i>: T = [0, 10, ..., 80].
struct EightLayers {
  Graph graph;
  std::vector<ValueId> weights;
  EightLayers() {
    ValueId previous = kNoValue;
    for (int i = 0; i < 8; ++i) {
      weights.push_back(Weight(graph, Named("w", i), 10));
      std::vector<ValueId> inputs = {weights.back()};
      if (previous != kNoValue) inputs.push_back(previous);
      previous = Work(graph, Named("n", i), inputs, Named("a", i), 1, 10);
    }
    MarkOutput(graph, previous);
  }
};

// The weights' layer indices in rank order, each once (its first candidate).
std::vector<int> LayersByRank(const planner::PlanContext& context,
                              const std::vector<ValueId>& weights) {
  std::vector<int> layers;
  for (const planner::Candidate& candidate : context.candidates.candidates) {
    for (int i = 0; i < static_cast<int>(weights.size()); ++i) {
      const bool seen = std::find(layers.begin(), layers.end(), i) != layers.end();
      if (candidate.value == weights[i] && !seen) layers.push_back(i);
    }
  }
  return layers;
}

}  // namespace

TEST_CASE("wrap rank: identical layers rank spread over the iteration, not from its ends") {
  const EightLayers g;
  const Graph loop = LoopGraph(g.graph, {});
  const HardwareProfile profile = UnitProfile();  // the context points at it
  const planner::PlanContext context =
      planner::BuildContext(loop, profile, ModelOrder(loop), {}, PersistentValues(loop, {}));
  // Every weight's wrap-around gap is the iteration less its read: T[i] + 80 - T[i + 1] =
  // 10i + 80 - 10(i + 1) = 70 ns. Its halves do not tie: w<i>'s leading half is 10i ns, its
  // trailing one 70 - 10i ns.
  for (const planner::Candidate& candidate : context.candidates.candidates) {
    for (ValueId w : g.weights) {
      if (candidate.value == w) CHECK(candidate.wrap_gap_ns == 70);
    }
  }
  // The trailing halves rank first (no Prefetch: 10 B x 70 ns over 1 ns, against 10 ns for a
  // leading half), all tied. The tie goes by the read step's fraction of the 8 steps, i / 8 =
  // i << 29 in 32 bits, bit-reversed: i = 1 (bit 29) -> bit 2 = 4; 2 (bit 30) -> bit 1 = 2;
  // 3 -> 6; 4 (bit 31) -> bit 0 = 1; 5 -> 5; 6 -> 3; 7 -> 7. Ascending keys: layers 0, 4, 2, 6,
  // 1, 5, 3, 7. Ranked by their own trailing halves (70 - 10i ns) they went 0, 1, 2, ...: the
  // first layers taken were adjacent.
  CHECK(LayersByRank(context, g.weights) == std::vector<int>{0, 4, 2, 6, 1, 5, 3, 7});

  // The variant the planner also tries (WrapRank::kOwnHalf) ranks each half by its own length:
  // trailing halves 10 B x (70 - 10i) ns over 1 ns, 700 for w0 down to 100 for w6; w7's is 0 ns
  // (10 B x 1 over 1 = 10), below its leading half (10 B x 70 ns over 10 ns = 70), which comes
  // after w6's trailing one. First candidates: layers 0, 1, ..., 7.
  const planner::PlanContext own_half = planner::WithWrapHalvesRankedAlone(context);
  CHECK(LayersByRank(own_half, g.weights) == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  for (const planner::Candidate& candidate : own_half.candidates.candidates) {
    CHECK(candidate.wrap_gap_ns == 0);
  }
}

TEST_CASE("wrap rank: a gap that is not a wrap-around half ranks by its own length") {
  // One-shot (no persistent values): w<i> has a leading gap of 10i ns and a trailing one of
  // 70 - 10i ns, and none is a wrap-around half, so none carries a wrap gap or a spread key.
  const EightLayers g;
  const HardwareProfile profile = UnitProfile();
  const planner::PlanContext context =
      planner::BuildContext(g.graph, profile, ModelOrder(g.graph), {}, {});
  for (const planner::Candidate& candidate : context.candidates.candidates) {
    CHECK(candidate.wrap_gap_ns == 0);
    CHECK(candidate.spread_key == 0);
  }
  // The best is the longest gap, 70 ns: w0's trailing gap (ties by value id: w0 before w7's
  // leading gap).
  REQUIRE_FALSE(context.candidates.candidates.empty());
  CHECK(context.candidates.candidates[0].value == g.weights[0]);
  CHECK(context.candidates.candidates[0].gap_ns == 70);
}
