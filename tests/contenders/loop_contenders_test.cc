// Every contender plans one iteration of the same loop as the planner: the same loop graph,
// the same aliases, invariant 8 checked by the one verifier, and the loop's lower bound below
// every plan that fits.
#include <filesystem>

#include "contender_support.h"
#include "contenders/layer_streaming.h"
#include "contenders/lower_bounds.h"
#include "contenders/op_distance.h"
#include "contenders/reactive_lru.h"
#include "contenders/steady_state.h"
#include "hyperplan/adapters/onnx_import.h"
#include "hyperplan/loop.h"
#include "hyperplan/planner/planner.h"
#include "support/run_command.h"

namespace hyperplan::contenders_test {
namespace {

// Plans `graph` as a loop with every contender and the planner at `budget`; each plan must be
// periodic and pass the verifier, and none that fits may beat the loop's lower bound.
void EveryPolicyPlansTheLoop(const Graph& graph, const HardwareProfile& profile, int64_t budget) {
  const LoopSpec loop{true, FindAliases(graph, {})};
  const auto context = contenders::BuildContenderContext(graph, profile, {}, loop);
  // A contender keeps what starts on the device there all iteration (steady_state.h); the
  // planner may let it leave between uses and come back (candidates.h), which invariant 8
  // checks.
  auto check = [&](const EvaluatedPlan& planned, bool contender = true) {
    const auto& [plan, evaluation] = planned;
    CHECK(plan.periodic);
    CHECK(plan.aliases.size() == loop.aliases.size());
    RequireVerified(graph, profile, plan,
                    evaluation);  // the model: VerifyPlan builds the loop graph
    if (contender) CHECK(contenders::StartsNotKept(context, plan).empty());
    // The bound holds per order: the planner may run a memory-aware order of its own.
    const auto bound = contenders::ComputeLowerBounds(
        *context.graph, profile, plan.order, context.node_time_ns, budget, context.persistent);
    if (evaluation.fits) CHECK(evaluation.timeline.makespan_ns >= bound.makespan_ns);
  };
  check(contenders::ReactiveLruPlan(context, budget));
  for (int lookahead : {0, 1}) {
    contenders::LayerStreamingOptions streaming;
    streaming.lookahead_layers = lookahead;
    check(contenders::LayerStreamingPlan(context, budget, streaming));
  }
  check(contenders::OpDistancePlan(context, budget, {}));
  PlanOptions options;
  options.budget_bytes = budget;
  options.aliases = loop.aliases;
  check(PlanOffload(graph, profile, options), /*contender=*/false);
}

std::string Generate(const std::string& preset, const std::string& form) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("hyperplan-loop-" + preset + "-" + form + ".onnx"))
          .string();
  const auto generated =
      testing::RunCommand({HYPERPLAN_GEN_PATH, "--preset", preset, "--form", form, "-o", path});
  INFO(generated.stdout_text << generated.stderr_text);
  REQUIRE(generated.exit_code == 0);
  return path;
}

TEST_CASE("loop contenders: the tiny decode step, its KV appended in place") {
  ImportOptions import;
  import.dims = {{"batch", 1}, {"sequence", 1}, { "past_sequence", 32 }};
  const Graph graph =
      ImportOnnxModel(std::string(HYPERPLAN_SOURCE_DIR) + "/models/llama-tiny-decode.onnx", import);
  // models/README.md: 4 layers, a key and a value cache each: 8 present -> past pairs.
  CHECK(FindAliases(graph, {}).size() == 8);
  const auto context = contenders::BuildContenderContext(graph, UnitProfile());
  for (int64_t percent : {100, 70, 50}) {
    INFO("budget " << percent << "% of the one-shot peak");
    EveryPolicyPlansTheLoop(graph, UnitProfile(), context.baseline_peak_bytes * percent / 100);
  }
}

TEST_CASE("loop contenders: the tiny training step, parameters and moments updated in place") {
  const std::string path = Generate("tiny", "train");
  ImportOptions import;
  import.dims = {{"batch", 1}, { "sequence", 8 }};
  const Graph graph = ImportOnnxModel(path, import);
  std::filesystem::remove(path);
  // 4 layers x 9 parameters + embedding, final norm, LM head = 39 parameters; each one's
  // ".updated" output and its two moments' ".updated.exp_avg[_sq]" feed back: 3 x 39.
  CHECK(FindAliases(graph, {}).size() == 3 * 39);
  const auto context = contenders::BuildContenderContext(graph, UnitProfile());
  for (int64_t percent : {50, 30}) {
    INFO("budget " << percent << "% of the one-shot peak");
    EveryPolicyPlansTheLoop(graph, UnitProfile(), context.baseline_peak_bytes * percent / 100);
  }
  // Links 200x slower: the traffic, not compute, bounds every plan.
  HardwareProfile slow_links = UnitProfile();
  for (Link& link : slow_links.links) link.bandwidth_bytes_per_s /= 200;
  for (int64_t percent : {50, 30}) {
    INFO("slow links, budget " << percent << "% of the one-shot peak");
    EveryPolicyPlansTheLoop(graph, slow_links, context.baseline_peak_bytes * percent / 100);
  }
}

}  // namespace
}  // namespace hyperplan::contenders_test
