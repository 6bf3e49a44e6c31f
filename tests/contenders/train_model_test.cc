// The generator's training step (hyperplan-gen --form train) end to end: the tiny model passes
// the ONNX checker and shape inference, imports with its moments classified as optimizer
// state, and every contender and the planner produce verified plans for it.
#include <filesystem>

#include "contender_support.h"
#include "contenders/layer_streaming.h"
#include "contenders/lower_bounds.h"
#include "contenders/op_distance.h"
#include "contenders/reactive_lru.h"
#include "hyperplan/adapters/onnx_import.h"
#include "hyperplan/planner/planner.h"
#include "support/run_command.h"

namespace hyperplan::contenders_test {
namespace {

TEST_CASE("training step: the tiny model is valid and every policy plans it") {
  const std::string path =
      (std::filesystem::temp_directory_path() / "hyperplan-baselines-tiny-train.onnx").string();
  const auto generated = testing::RunCommand(
      {HYPERPLAN_GEN_PATH, "--preset", "tiny", "--form", "train", "-o", path, "--check"});
  INFO(generated.stdout_text << generated.stderr_text);
  REQUIRE(generated.exit_code == 0);
  CHECK(generated.stdout_text.find("have concrete shapes") != std::string::npos);

  ImportOptions import;
  import.dims = {{"batch", 1}, { "sequence", 8 }};
  const Graph graph = ImportOnnxModel(path, import);
  std::filesystem::remove(path);
  const ValueId moment = graph.FindValue("model.layers.0.mlp.up_proj.weight.exp_avg_sq");
  REQUIRE(moment != kNoValue);
  CHECK(graph.values[moment].value_class == ValueClass::kOptimizerState);
  const ValueId updated = graph.FindValue("model.layers.0.mlp.up_proj.weight.updated.exp_avg");
  REQUIRE(updated != kNoValue);
  CHECK(graph.values[updated].value_class == ValueClass::kOptimizerState);
  // 4 layers x 9 parameters + embedding, final norm, LM head, each with two moments.
  int moments = 0;
  for (const Value& value : graph.values) {
    moments += value.value_class == ValueClass::kOptimizerState && value.is_graph_input;
  }
  CHECK(moments == 2 * (4 * 9 + 3));

  const HardwareProfile profile = UnitProfile();
  const auto context = contenders::BuildContenderContext(graph, profile);
  const int64_t budget = context.baseline_peak_bytes / 2;
  const auto bound =
      contenders::ComputeLowerBounds(graph, profile, context.order, context.node_time_ns, budget);
  auto check = [&](const EvaluatedPlan& planned) {
    const auto& [plan, evaluation] = planned;
    RequireVerified(graph, profile, plan, evaluation);
    if (evaluation.fits) CHECK(evaluation.timeline.makespan_ns >= bound.makespan_ns);
  };
  check(contenders::ReactiveLruPlan(context, budget));
  contenders::LayerStreamingOptions streaming;
  streaming.lookahead_layers = 1;
  check(contenders::LayerStreamingPlan(context, budget, streaming));
  check(contenders::OpDistancePlan(context, budget, {}));
  PlanOptions options;
  options.budget_bytes = budget;
  const PlanResult planned = PlanOffload(graph, profile, options);
  check(planned);
  CHECK(planned.status == PlanStatus::kPlanned);
}

}  // namespace
}  // namespace hyperplan::contenders_test
