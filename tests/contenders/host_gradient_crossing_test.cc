// The 8B training plan failed verification on package P's uncommitted tree (invariant 4: a
// Store of a backward Reshape view, `dy_rows`, before the value was complete) when the
// optimizer part took in the gradient's Gemm, which at 4096 tokens by 4096 features had its
// output's shape at every input; the committed part (optimizer_nodes.h) stops at elementwise
// ops. This placement forces that Gemm onto the host anyway, beside every optimizer part, so
// its two Reshape-view inputs cross to the host by Stores, at device capacities from unbounded
// to below the tiny training step's peak: every plan must verify.
#include <string>

#include "contender_support.h"
#include "contenders/context.h"
#include "host_decoder.h"
#include "hyperplan/adapters/onnx_import.h"
#include "hyperplan/loop.h"
#include "hyperplan/planner/host_parts.h"
#include "hyperplan/planner/planner.h"
#include "support/generated_graph.h"

namespace hyperplan::contenders_test {
namespace {

bool EndsWith(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() &&
         text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

// Every optimizer part's nodes and each Gemm writing a `.grad` value on the host.
std::vector<ComputeUnit> OptimizerAndGradientGemms(const contenders::ContenderContext& context,
                                                   int& gemms) {
  const Graph& graph = *context.graph;
  std::vector<ComputeUnit> units(graph.nodes.size(), ComputeUnit::kDevice);
  for (const HostPart& part : FindHostParts(context)) {
    if (part.kind != HostPartKind::kOptimizer) continue;
    for (NodeId node : part.nodes) units[node] = ComputeUnit::kHost;
  }
  gemms = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (graph.nodes[n].op_type != "Gemm") continue;
    for (ValueId out : graph.nodes[n].outputs) {
      if (!EndsWith(graph.values[out].name, ".grad")) continue;
      units[n] = ComputeUnit::kHost;
      ++gemms;
    }
  }
  return units;
}

TEST_CASE("a gradient's Gemm on the host: its Reshape-view inputs cross and the plan verifies") {
  // 64 tokens by tiny's 64 features: the shapes of the 8B case at 4096.
  const Graph graph = testing::GeneratedGraph({"--preset", "tiny", "--form", "train"},
                                              {{"batch", 1}, {"sequence", 64}});
  for (const int64_t capacity : {int64_t{1} << 40, int64_t{2} << 20, int64_t{3} << 19}) {
    INFO("device capacity " << capacity);
    const HardwareProfile profile = HostUnitProfile(capacity);
    const auto context =
        contenders::BuildContenderContext(graph, profile, {}, {true, FindAliases(graph, {})});
    int gemms = 0;
    const auto units = OptimizerAndGradientGemms(context, gemms);
    // 4 layers x 7 projections (q, k, v, o, gate, up, down) and the LM head: 29 weight
    // gradients by Gemm (the norms' and the embedding's are not).
    CHECK(gemms == 29);
    const auto result =
        PlanOffload(PlaceUnits(context, units), contenders::DeviceSideOptions(context, capacity));
    RequireVerified(graph, profile, result.plan, result.evaluation);
  }
}

}  // namespace
}  // namespace hyperplan::contenders_test
