// Baseline test support: the hand-worked graphs, a verifier assertion, and random DAGs.
//
// Unit rates (support/tiny_graph.h): hbm <-> ddr at 1 byte/ns each way, no latency, one
// channel, weights homed in ddr. Node times are given directly (BuildContenderContext's
// override), so every expected time is plain arithmetic in the tests' comments.
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "contenders/context.h"
#include "contenders/host_lower_bound.h"
#include "contenders/lower_bounds.h"
#include "hyperplan/plan/verify.h"
#include "support/tiny_graph.h"

namespace hyperplan::contenders_test {

using testing::Bytes;
using testing::Input;
using testing::MarkOutput;
using testing::Op;
using testing::UnitProfile;
using testing::Weight;

// The in-order host-aware bound a plan run in `order` must meet: `bound_ns`, taken in the
// context's order, or for another order the bound taken in that one (a plan meets the in-order
// bound of its own order).
inline int64_t OwnOrderHostBound(const contenders::ContenderContext& context,
                                 const HardwareProfile& profile, int64_t budget,
                                 const std::vector<NodeId>& order, int64_t bound_ns) {
  if (order == context.order) return bound_ns;
  const contenders::LowerBounds own = contenders::ComputeLowerBounds(
      *context.graph, profile, order, context.node_time_ns, budget, context.persistent);
  return contenders::ComputeHostAwareBound(context, own, /*in_order=*/true).makespan_ns;
}

// Two layers: x (10 B) -> n0(x, layers.0.w 100 B) -> a (10 B) -> n1(a, layers.1.w 100 B) -> b
// (10 B, output). Times: n0 = n1 = `node_ns`.
struct TwoLayers {
  Graph graph;
  ValueId x, w0, w1, a, b;
  std::vector<int64_t> times;
};

inline TwoLayers MakeTwoLayers(int64_t node_ns) {
  TwoLayers t;
  t.x = Input(t.graph, "x", 10);
  t.w0 = Weight(t.graph, "model.layers.0.w", 100);
  t.w1 = Weight(t.graph, "model.layers.1.w", 100);
  t.a = Bytes(t.graph, "a", 10);
  t.b = Bytes(t.graph, "b", 10);
  Op(t.graph, "n0", "Work", {t.x, t.w0}, {t.a});
  Op(t.graph, "n1", "Work", {t.a, t.w1}, {t.b});
  MarkOutput(t.graph, t.b);
  t.times = {node_ns, node_ns};
  return t;
}

// An activation stashed across two steps: x (10 B) -> n0 -> a (100 B) -> n1 -> b (10 B) ->
// n2 -> c (10 B); n3(a, c) -> d (10 B, output). Times 10, 100, 100, 10 ns.
struct Stash {
  Graph graph;
  ValueId x, a, b, c, d;
  std::vector<int64_t> times = {10, 100, 100, 10};
};

inline Stash MakeStash() {
  Stash s;
  s.x = Input(s.graph, "x", 10);
  s.a = Bytes(s.graph, "a", 100);
  s.b = Bytes(s.graph, "b", 10);
  s.c = Bytes(s.graph, "c", 10);
  s.d = Bytes(s.graph, "d", 10);
  Op(s.graph, "n0", "Work", {s.x}, {s.a});
  Op(s.graph, "n1", "Work", {s.a}, {s.b});
  Op(s.graph, "n2", "Work", {s.b}, {s.c});
  Op(s.graph, "n3", "Work", {s.a, s.c}, {s.d});
  MarkOutput(s.graph, s.d);
  return s;
}

// The unit profile with an nvme tier behind ddr (nvme <-> ddr at 1 byte/ns each way, one
// channel, as ddr <-> hbm), the weights homed on it; ddr holds `ddr_capacity_bytes`.
inline HardwareProfile NvmeBehindDdr(int64_t ddr_capacity_bytes = int64_t{1} << 50) {
  HardwareProfile profile = UnitProfile();
  profile.tiers[1].capacity_bytes = ddr_capacity_bytes;
  profile.tiers.push_back({"nvme", int64_t{1} << 50, false});
  profile.links.push_back({2, 1, 1'000'000'000, 0, 1});  // nvme -> ddr
  profile.links.push_back({1, 2, 1'000'000'000, 0, 1});  // ddr -> nvme
  profile.weight_home_tier = 2;
  return profile;
}

inline void RequireVerified(const Graph& graph, const HardwareProfile& profile, const Plan& plan,
                            const PlanEvaluation& evaluation) {
  const VerifyResult verdict = VerifyPlan(graph, profile, plan, evaluation);
  INFO(verdict.message);
  REQUIRE(verdict.ok);
}

inline std::vector<StepKind> Kinds(const Plan& plan) {
  std::vector<StepKind> kinds;
  for (const PlanStep& step : plan.steps) kinds.push_back(step.kind);
  return kinds;
}

// Random DAGs: node i reads one to three earlier values (sometimes far back) and sometimes a
// weight named "model.layers.<i / 3>.w<i>" (so layer streaming finds layers), and writes one
// or two values; the last value is the output. Sizes 1..200 B, times 1..200 ns.
struct RandomCase {
  Graph graph;
  std::vector<int64_t> times;
};

inline std::string Numbered(const char* prefix, int index) {
  std::string name(prefix);
  name.append(std::to_string(index));
  return name;
}

inline RandomCase RandomDag(uint32_t seed, int nodes) {
  std::mt19937 rng(seed);
  auto uniform = [&](int lo, int hi) {
    return lo + static_cast<int>(rng() % static_cast<uint32_t>(hi - lo + 1));
  };
  RandomCase c;
  std::vector<ValueId> produced{Input(c.graph, "x", uniform(1, 200))};
  for (int i = 0; i < nodes; ++i) {
    std::vector<ValueId> inputs;
    for (int r = uniform(1, 3); r > 0; --r) {
      const int count = static_cast<int>(produced.size());
      const int back = uniform(0, 99) < 30 ? uniform(0, count - 1) : std::min(count - 1, 1);
      const ValueId v = produced[count - 1 - uniform(0, back)];
      if (std::find(inputs.begin(), inputs.end(), v) == inputs.end()) inputs.push_back(v);
    }
    if (uniform(0, 99) < 50) {
      std::string name = Numbered("model.layers.", i / 3);
      name.append(Numbered(".w", i));
      inputs.push_back(Weight(c.graph, name, uniform(1, 200)));
    }
    std::vector<ValueId> outputs{Bytes(c.graph, Numbered("v", i), uniform(1, 200))};
    if (uniform(0, 99) < 20) outputs.push_back(Bytes(c.graph, Numbered("u", i), uniform(1, 50)));
    Op(c.graph, Numbered("n", i), "Work", inputs, outputs);
    c.graph.nodes.back().subgraph_peak_bytes = uniform(0, 99) < 10 ? uniform(1, 100) : 0;
    for (ValueId out : outputs) produced.push_back(out);
    c.times.push_back(uniform(1, 200));
  }
  MarkOutput(c.graph, produced.back());
  return c;
}

}  // namespace hyperplan::contenders_test
