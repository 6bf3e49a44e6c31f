// Sampled routings (see routing_samples.h).
#include "hyperplan/routing_samples.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "expert_gather.h"
#include "hyperplan/host_cost.h"
#include "hyperplan/routing.h"
#include "moe_shape.h"

namespace hyperplan {
namespace {

// splitmix64 (Steele, Lea, Flood 2014): a fixed sequence from a 64-bit state, the same on
// every machine; one generator per node and routing.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t state) : state_(state) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1) from the top 53 bits (std::uniform_real_distribution's output differs
  // between standard libraries).
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  // Uniform in [0, n) for n >= 1 (the modulo bias is below 2^-40 for n < 2^24).
  int64_t Below(int64_t n) { return static_cast<int64_t>(Next() % static_cast<uint64_t>(n)); }

 private:
  uint64_t state_;
};

SplitMix64 GeneratorFor(uint64_t seed, int64_t index, NodeId node) {
  SplitMix64 mix(seed);
  const uint64_t a = mix.Next() ^ static_cast<uint64_t>(index);
  SplitMix64 mix_index(a);
  return SplitMix64(mix_index.Next() ^ static_cast<uint64_t>(node));
}

// One token's k picks by systematic sampling over `order` (shuffled here): marks them.
void DrawToken(const std::vector<double>& p, std::vector<int32_t>& order, SplitMix64& rng,
               std::vector<char>& touched) {
  for (size_t i = order.size(); i > 1; --i) {
    std::swap(order[i - 1], order[rng.Below(static_cast<int64_t>(i))]);
  }
  double next_point = rng.Uniform();
  double cumulative = 0.0;
  for (int32_t e : order) {
    cumulative += p[e];
    if (next_point < cumulative) {
      touched[e] = 1;
      next_point += 1.0;
    }
  }
}

// Many tokens: each expert on its own, touched with probability 1 - (1 - p_e)^T.
void DrawExperts(const std::vector<double>& p, int64_t tokens, SplitMix64& rng,
                 std::vector<char>& touched) {
  for (size_t e = 0; e < p.size(); ++e) {
    const double untouched = std::pow(1.0 - p[e], static_cast<double>(tokens));
    touched[e] = rng.Uniform() >= untouched ? 1 : 0;
  }
}

// An expert Gather's routing: the profile its layer's Gathers share (expert_gather.h), else
// uniform, drawn with the other Gathers of its router.
std::optional<MoeRouting> ExpertGatherRouting(const Graph& graph, NodeId node) {
  const std::optional<cost_rules::ExpertGatherShape> shape =
      cost_rules::DescribeExpertGather(graph, graph.nodes[node]);
  if (!shape || shape->tokens <= 0) return std::nullopt;
  const NodeId router = graph.values[shape->indices].producer;
  MoeRouting routing{node,
                     shape->experts,
                     shape->experts_per_token,
                     shape->tokens,
                     {},
                     router != kNoNode ? router : node};
  if (shape->selection != nullptr) routing.selection_probability = *shape->selection;
  return routing;
}

// An expert Gather's bytes when its tokens touch `distinct` experts: its byte rule's, with
// the table's expected read (routing.h's expectation, what NodeBytes charges) replaced.
int64_t ExpertGatherBytes(const Graph& graph, const Node& node,
                          const cost_rules::ExpertGatherShape& shape, double distinct) {
  return NodeBytes(graph, node) - cost_rules::ExpectedTableReadBytes(graph, shape) +
         RoutedBytes(graph.values[shape.table].bytes, shape.experts, distinct);
}

}  // namespace

std::optional<MoeRouting> MoeRoutingOf(const Graph& graph, NodeId node) {
  if (node < 0 || static_cast<size_t>(node) >= graph.nodes.size()) return std::nullopt;
  const Node& moe = graph.nodes[node];
  const std::optional<cost_rules::MoeShape> shape = cost_rules::DescribeMoe(graph, moe);
  if (!shape) return ExpertGatherRouting(graph, node);
  if (shape->tokens <= 0) return std::nullopt;
  MoeRouting routing{node, shape->experts, shape->experts_per_token, shape->tokens, {}, node};
  const auto measured = graph.expert_selection.find(moe.name);
  if (measured != graph.expert_selection.end() &&
      static_cast<int64_t>(measured->second.size()) == shape->experts) {
    routing.selection_probability = measured->second;
  }
  return routing;
}

ValueId RoutingInputOf(const Graph& graph, NodeId node) {
  if (!MoeRoutingOf(graph, node)) return kNoValue;
  return graph.nodes[node].inputs[1];
}

std::vector<MoeRouting> FindMoeRoutings(const Graph& graph) {
  std::vector<MoeRouting> routings;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    std::optional<MoeRouting> routing = MoeRoutingOf(graph, static_cast<NodeId>(n));
    if (routing) routings.push_back(std::move(*routing));
  }
  return routings;
}

std::vector<double> SelectionProbabilities(const MoeRouting& routing) {
  const double k = static_cast<double>(routing.experts_per_token);
  if (routing.selection_probability.empty()) {
    return std::vector<double>(routing.experts, k / static_cast<double>(routing.experts));
  }
  return ScaledSelection(routing.selection_probability, routing.experts_per_token);
}

std::vector<char> SampleTouchedExperts(const MoeRouting& routing, uint64_t seed, int64_t index) {
  if (routing.experts <= 0 || routing.tokens <= 0) return {};
  const std::vector<double> p = SelectionProbabilities(routing);
  SplitMix64 rng = GeneratorFor(seed, index, routing.draw != kNoNode ? routing.draw : routing.node);
  std::vector<char> touched(routing.experts, 0);
  if (routing.tokens > kTokenDrawLimit / routing.experts) {
    DrawExperts(p, routing.tokens, rng, touched);
  } else {
    std::vector<int32_t> order(routing.experts);
    std::iota(order.begin(), order.end(), 0);
    for (int64_t t = 0; t < routing.tokens; ++t) DrawToken(p, order, rng, touched);
  }
  return touched;
}

int64_t SampleDistinctExperts(const MoeRouting& routing, uint64_t seed, int64_t index) {
  const std::vector<char> touched = SampleTouchedExperts(routing, seed, index);
  return std::count(touched.begin(), touched.end(), 1);
}

NodeCost MoeNodeCostOn(ComputeUnit unit, const Graph& graph, NodeId node,
                       const HardwareProfile& profile, double distinct) {
  const Node& moe = graph.nodes[node];
  const std::optional<cost_rules::MoeShape> shape = cost_rules::DescribeMoe(graph, moe);
  int64_t bytes = 0;
  if (shape) {
    bytes = cost_rules::RoutedMoeBytes(*shape, distinct);
  } else if (const auto gather = cost_rules::DescribeExpertGather(graph, moe)) {
    bytes = ExpertGatherBytes(graph, moe, *gather, distinct);
  } else {
    return EstimateNodeCostOn(unit, graph, moe, profile);
  }
  const DType dtype = ComputeDType(graph, moe);
  const int64_t flops = NodeFlops(graph, moe);
  return unit == ComputeUnit::kHost ? HostRooflineCost(profile.host_compute, dtype, flops, bytes)
                                    : RooflineCost(profile, dtype, flops, bytes);
}

}  // namespace hyperplan
