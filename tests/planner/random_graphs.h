// Random DAGs for property and oracle tests: fixed seeds, printed by the tests that use them.
//
// Node i reads one to three earlier values (mostly recent ones, sometimes far back: skip
// connections), sometimes a weight, and writes one value; sizes, times and scratch vary.
// The last node's output is the graph output; a graph input feeds the first node.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "planner_support.h"

namespace hyperplan::planner_test {

struct RandomGraphShape {
  int nodes = 8;
  int max_value_bytes = 200;
  int max_time_ns = 200;
  int weight_percent = 30;   // chance a node reads a weight of its own
  int skip_percent = 30;     // chance an input comes from far back
  int scratch_percent = 15;  // chance a node needs scratch
};

inline Graph RandomDag(uint32_t seed, const RandomGraphShape& shape) {
  std::mt19937 rng(seed);
  auto uniform = [&](int lo, int hi) {
    return lo + static_cast<int>(rng() % static_cast<uint32_t>(hi - lo + 1));
  };
  Graph graph;
  graph.name = Named("random-", static_cast<int>(seed));
  std::vector<ValueId> produced{Input(graph, "x", uniform(1, shape.max_value_bytes))};
  for (int i = 0; i < shape.nodes; ++i) {
    std::vector<ValueId> inputs;
    const int reads = uniform(1, 3);
    for (int r = 0; r < reads; ++r) {
      const int count = static_cast<int>(produced.size());
      const int back = uniform(0, 99) < shape.skip_percent ? uniform(0, count - 1)
                                                           : std::min(count - 1, uniform(0, 1));
      const ValueId v = produced[count - 1 - back];
      if (std::find(inputs.begin(), inputs.end(), v) == inputs.end()) inputs.push_back(v);
    }
    if (uniform(0, 99) < shape.weight_percent) {
      inputs.push_back(Weight(graph, Named("w", i), uniform(1, shape.max_value_bytes)));
    }
    const int64_t scratch =
        uniform(0, 99) < shape.scratch_percent ? uniform(1, 2 * shape.max_value_bytes) : 0;
    produced.push_back(Work(graph, Named("n", i), inputs, Named("v", i),
                            uniform(1, shape.max_value_bytes), uniform(1, shape.max_time_ns),
                            scratch));
  }
  MarkOutput(graph, produced.back());
  return graph;
}

}  // namespace hyperplan::planner_test
