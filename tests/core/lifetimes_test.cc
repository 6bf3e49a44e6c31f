// Lifetimes and the no-offload timeline on hand-sized graphs.
#include "hyperplan/lifetimes.h"

#include <catch2/catch.hpp>

#include "hyperplan/error.h"
#include "support/tiny_graph.h"

using namespace hyperplan;
using namespace hyperplan::testing;

namespace {

// w(100, weight) and x(10, input) -> n0 -> a(20) -> n1 -> b(30) -> n2(b, x) -> y(40, output)
struct Chain {
  Graph graph;
  ValueId w, x, a, b, y;
  Chain() {
    w = Weight(graph, "w", 100);
    x = Input(graph, "x", 10);
    a = Bytes(graph, "a", 20);
    b = Bytes(graph, "b", 30);
    y = Bytes(graph, "y", 40);
    MarkOutput(graph, y);
    Op(graph, "n0", "MatMul", {x, w}, {a});
    Op(graph, "n1", "Relu", {a}, {b});
    Op(graph, "n2", "Add", {b, x}, {y});
  }
};

}  // namespace

TEST_CASE("uses and baseline residency of a chain") {
  Chain chain;
  const LifetimeAnalysis analysis = AnalyzeLifetimes(chain.graph, ModelOrder(chain.graph));
  const auto& lifetimes = analysis.lifetimes;
  // The weight is read only at step 0 but, owned outside the run, stays resident to step 2.
  CHECK(lifetimes[chain.w].def_step == 0);
  CHECK(lifetimes[chain.w].last_use_step == 0);
  CHECK(lifetimes[chain.w].baseline_last_step == 2);
  // x is read at steps 0 and 2.
  CHECK(lifetimes[chain.x].use_steps == std::vector<Step>{0, 2});
  // a: produced at 0, read at 1.
  CHECK(lifetimes[chain.a].baseline_first_step == 0);
  CHECK(lifetimes[chain.a].baseline_last_step == 1);
  // y: produced at 2, an output: resident to the last step, 2.
  CHECK(lifetimes[chain.y].def_step == 2);
  CHECK(lifetimes[chain.y].baseline_last_step == 2);
}

TEST_CASE("baseline timeline and peak of a chain") {
  Chain chain;
  const LifetimeAnalysis analysis = AnalyzeLifetimes(chain.graph, ModelOrder(chain.graph));
  // step 0: w 100 + x 10 + a 20 = 130
  // step 1: w 100 + x 10 + a 20 + b 30 = 160
  // step 2: w 100 + x 10 + b 30 + y 40 = 180
  CHECK(analysis.timeline.live_bytes_per_step == std::vector<int64_t>{130, 160, 180});
  CHECK(analysis.timeline.peak_bytes == 180);
  CHECK(analysis.timeline.peak_step == 2);
  // Live at step 2, largest first: w 100, y 40, b 30, x 10.
  CHECK(LiveValuesAt(chain.graph, analysis, 2) ==
        std::vector<ValueId>{chain.w, chain.y, chain.b, chain.x});
}

TEST_CASE("a control-flow node adds its bodies' peak during its step") {
  Chain chain;
  chain.graph.nodes[1].subgraph_peak_bytes = 1000;
  const LifetimeAnalysis analysis = AnalyzeLifetimes(chain.graph, ModelOrder(chain.graph));
  // step 1: 160 + 1000
  CHECK(analysis.timeline.peak_bytes == 1160);
  CHECK(analysis.timeline.peak_step == 1);
}

TEST_CASE("the first step reaching the peak is reported") {
  Graph graph;
  const ValueId x = Input(graph, "x", 10);
  const ValueId a = Bytes(graph, "a", 10);
  const ValueId b = Bytes(graph, "b", 10);
  MarkOutput(graph, b);
  Op(graph, "n0", "Relu", {x}, {a});
  Op(graph, "n1", "Relu", {a}, {b});
  // step 0: x 10 + a 10 = 20; step 1: x 10 + a 10 + b 10 = 30 (x stays: a graph input).
  const LifetimeAnalysis analysis = AnalyzeLifetimes(graph, ModelOrder(graph));
  CHECK(analysis.timeline.live_bytes_per_step == std::vector<int64_t>{20, 30});
  CHECK(analysis.timeline.peak_step == 1);
}

TEST_CASE("another topological order changes the timeline") {
  // x -> n0 -> big(100) ; x -> n1 -> small(1) ; n2(big) -> o1 ; n3(small) -> o2
  Graph graph;
  const ValueId x = Input(graph, "x", 1);
  const ValueId big = Bytes(graph, "big", 100);
  const ValueId small = Bytes(graph, "small", 1);
  const ValueId o1 = Bytes(graph, "o1", 1);
  const ValueId o2 = Bytes(graph, "o2", 1);
  MarkOutput(graph, o1);
  MarkOutput(graph, o2);
  Op(graph, "n0", "Relu", {x}, {big});
  Op(graph, "n1", "Relu", {x}, {small});
  Op(graph, "n2", "Relu", {big}, {o1});
  Op(graph, "n3", "Relu", {small}, {o2});
  // Model order: x [0,3] 1, big [0,2] 100, small [1,3] 1, o1 [2,3] 1, o2 [3,3] 1.
  // step 0: 1 + 100 = 101; step 1: + small = 102; step 2: + o1 = 103; step 3: 1 + 1 + 1 + 1 = 4.
  CHECK(AnalyzeLifetimes(graph, ModelOrder(graph)).timeline.live_bytes_per_step ==
        std::vector<int64_t>{101, 102, 103, 4});
  // Order n1, n3, n0, n2: x [0,3], small [0,1], o2 [1,3], big [2,3], o1 [3,3].
  // step 0: 1 + 1 = 2; step 1: 1 + 1 + 1 = 3; step 2: 1 + 1 + 100 = 102; step 3: 102 + 1 = 103.
  const LifetimeAnalysis reordered = AnalyzeLifetimes(graph, {1, 3, 0, 2});
  CHECK(reordered.timeline.live_bytes_per_step == std::vector<int64_t>{2, 3, 102, 103});
  CHECK(reordered.step_of_node == std::vector<Step>{2, 0, 3, 1});
}

TEST_CASE("a non-topological order is rejected") {
  Chain chain;
  CHECK_THROWS_AS(AnalyzeLifetimes(chain.graph, {1, 0, 2}), Error);
  CHECK_THROWS_AS(AnalyzeLifetimes(chain.graph, {0, 0, 2}), Error);
  CHECK_THROWS_AS(AnalyzeLifetimes(chain.graph, {0, 1}), Error);
}
