// Scale: a synthetic 100k-node transformer-like graph (hidden test; run it on a Release build
// with `hyperplan_planner_tests "[.perf]"`). Prints the planning time per mode.
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <ctime>

#include "hyperplan/lifetimes.h"
#include "planner_support.h"

using namespace hyperplan;
using namespace hyperplan::planner_test;

namespace {

// Layers of 10 nodes: 4 weight matmuls, a residual from the layer's input to its end, a
// kv-cache input read by the attention node, scratch in attention.
Graph Transformer(int layers) {
  Graph graph;
  graph.name = Named("synthetic-", layers * 10);
  ValueId hidden = Input(graph, "x", 4096);
  for (int l = 0; l < layers; ++l) {
    const std::string p = Named("l", l, ".");
    const ValueId wq = Weight(graph, p + "wq", 32768);
    const ValueId wo = Weight(graph, p + "wo", 32768);
    const ValueId w1 = Weight(graph, p + "w1", 131072);
    const ValueId w2 = Weight(graph, p + "w2", 131072);
    const ValueId kv = Input(graph, p + "past_kv", 65536);
    graph.values[kv].value_class = ValueClass::kKvCache;
    const ValueId n1 = Work(graph, p + "norm1", {hidden}, p + "n1", 4096, 400);
    const ValueId q = Work(graph, p + "q", {n1, wq}, p + "qv", 4096, 2000);
    const ValueId att = Work(graph, p + "attn", {q, kv}, p + "att", 4096, 3000, 16384);
    const ValueId o = Work(graph, p + "o", {att, wo}, p + "ov", 4096, 2000);
    const ValueId r1 = Work(graph, p + "res1", {o, hidden}, p + "r1", 4096, 200);
    const ValueId n2 = Work(graph, p + "norm2", {r1}, p + "n2", 4096, 400);
    const ValueId up = Work(graph, p + "up", {n2, w1}, p + "upv", 16384, 8000);
    const ValueId act = Work(graph, p + "act", {up}, p + "actv", 16384, 300);
    const ValueId down = Work(graph, p + "down", {act, w2}, p + "downv", 4096, 8000);
    hidden = Work(graph, p + "res2", {down, r1}, p + "h", 4096, 200);
  }
  MarkOutput(graph, hidden);
  return graph;
}

}  // namespace

TEST_CASE("perf: a 100k-node graph plans in seconds", "[.perf]") {
  // 10k nodes first, to show the growth from 10k to 100k.
  for (const int layers : {1'000, 10'000}) {
    const Graph graph = Transformer(layers);
    REQUIRE(graph.nodes.size() == static_cast<size_t>(layers) * 10);
    const int64_t peak = AnalyzeLifetimes(graph, ModelOrder(graph)).timeline.peak_bytes;
    // Fast links (64 B/ns) let weights stream behind compute; slow ones (1 B/ns) force stalls.
    for (const int64_t bytes_per_ns : {64, 1}) {
      HardwareProfile profile = UnitProfile();
      profile.links[0].bandwidth_bytes_per_s *= bytes_per_ns;
      profile.links[1].bandwidth_bytes_per_s *= bytes_per_ns;
      for (const bool budget : {false, true}) {
        PlanOptions options;
        if (budget) options.budget_bytes = peak / 100;
        const auto start = std::chrono::steady_clock::now();
        const std::clock_t cpu_start = std::clock();
        const PlanResult result = PlanOffload(graph, profile, options);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const double cpu_seconds = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
        std::printf(
            "perf: %zu nodes, links %lld B/ns, %s: %.2f s wall, %.2f s cpu, status %d, peak %lld "
            "-> "
            "%lld B, "
            "arena %lld B, makespan %lld -> %lld ns, %zu steps\n",
            graph.nodes.size(), static_cast<long long>(bytes_per_ns),
            budget ? "budget 1% of peak" : "no budget", seconds, cpu_seconds,
            static_cast<int>(result.status), static_cast<long long>(peak),
            static_cast<long long>(result.evaluation.summary.peak_bytes),
            static_cast<long long>(result.plan.layout.arena_bytes),
            static_cast<long long>(result.evaluation.summary.baseline_makespan_ns),
            static_cast<long long>(result.evaluation.summary.makespan_ns),
            result.plan.steps.size());
        CHECK(seconds < 60.0);
      }
    }
  }
}
