// Test support: plans made by PlanOffload for the report tests, on graphs built in C++ and on
// the bundled models.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "hyperplan/adapters/onnx_import.h"
#include "hyperplan/adapters/profile_yaml.h"
#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/planner/planner.h"
#include "support/tiny_graph.h"

namespace hyperplan::testing {

struct SamplePlan {
  Graph graph;
  HardwareProfile profile;
  PlanOptions options;
  Plan plan;
  PlanEvaluation evaluation;
  std::string model_path;
};

// The no-offload plan's device peak, for budgets relative to it.
inline int64_t BaselinePeakBytes(const Graph& graph, const HardwareProfile& profile,
                                 const std::vector<int64_t>& node_time_ns) {
  PlanOptions options;
  options.offload = false;
  options.node_time_ns = node_time_ns;
  return PlanOffload(graph, profile, options).evaluation.summary.baseline_peak_bytes;
}

inline SamplePlan Finish(SamplePlan sample) {
  PlanResult result = PlanOffload(sample.graph, sample.profile, sample.options);
  sample.plan = std::move(result.plan);
  sample.evaluation = std::move(result.evaluation);
  return sample;
}

// One 4096-byte activation ("big") made at step 0 and read at step 5; steps 1-4 are slow
// (5000 ns each) and pass 512-byte values along. With nothing offloaded a middle step holds
// big + two 512-byte values = 5120 bytes (plus the 8-byte input at step 1); step 5 holds big +
// small3 + out = 4096 + 512 + 64 = 4672. A 4672-byte budget therefore forces "big" off the
// device for the middle steps, and at 1 byte/ns its Store and Prefetch (4096 ns each) hide
// behind the 5000 ns steps. Reordering is off: running the work steps before "produce" would
// meet the budget without any transfer.
inline SamplePlan TinyOffloadSample() {
  SamplePlan sample;
  Graph& g = sample.graph;
  g.name = "tiny <offload> & \"friends\"";
  const ValueId in = Input(g, "in", 8);
  const ValueId big = Bytes(g, "big", 4096);
  Op(g, "produce", "Relu", {in}, {big});
  ValueId previous = in;
  for (int i = 0; i < 4; ++i) {
    const ValueId next = Bytes(g, "small" + std::to_string(i), 512);
    Op(g, "work" + std::to_string(i), "Sigmoid", {previous}, {next});
    previous = next;
  }
  const ValueId out = Bytes(g, "out", 64);
  Op(g, "consume", "Add", {big, previous}, {out});
  MarkOutput(g, out);
  sample.profile = UnitProfile();
  sample.options.budget_bytes = 4672;
  sample.options.allow_reorder = false;
  sample.options.node_time_ns = {100, 5000, 5000, 5000, 5000, 100};
  return Finish(std::move(sample));
}

// A chain of `layers` blocks, each a weight read by a matmul-like op whose activation is
// also read by the block `skip` layers later, so long-lived activations and weights give the
// planner plenty to offload. Node times: 1000 ns each.
inline SamplePlan ChainSample(int layers, int skip, int64_t budget_fraction_percent) {
  SamplePlan sample;
  Graph& g = sample.graph;
  g.name = "chain" + std::to_string(layers);
  ValueId x = Input(g, "x", 256);
  std::vector<ValueId> acts;
  for (int l = 0; l < layers; ++l) {
    const ValueId w = Weight(g, "w" + std::to_string(l), 2048);
    const ValueId y = Bytes(g, "act" + std::to_string(l), 1024);
    std::vector<ValueId> inputs = {x, w};
    if (l >= skip) inputs.push_back(acts[static_cast<size_t>(l - skip)]);
    Op(g, "layer" + std::to_string(l), "MatMul", inputs, {y});
    acts.push_back(y);
    x = y;
  }
  MarkOutput(g, x);
  sample.profile = UnitProfile();
  sample.options.node_time_ns.assign(g.nodes.size(), 1000);
  sample.options.budget_bytes = BaselinePeakBytes(g, sample.profile, sample.options.node_time_ns) *
                                budget_fraction_percent / 100;
  return Finish(std::move(sample));
}

// A bundled model on the embedded default profile, planned to `budget_percent` of its
// no-offload peak.
inline SamplePlan BundledSample(const std::string& file,
                                std::map<std::string, int64_t, std::less<>> dims,
                                int64_t budget_percent) {
  SamplePlan sample;
  sample.model_path = "models/" + file;
  sample.profile = DefaultProfile();
  ImportOptions import;
  import.dims = std::move(dims);
  import.class_rules = sample.profile.class_rules;
  sample.graph =
      ImportOnnxModel(std::string(HYPERPLAN_SOURCE_DIR) + "/" + sample.model_path, import);
  sample.options.budget_bytes =
      BaselinePeakBytes(sample.graph, sample.profile, {}) * budget_percent / 100;
  return Finish(std::move(sample));
}

}  // namespace hyperplan::testing
