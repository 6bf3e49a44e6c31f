// End-to-end for issue 32: plan and fit refuse a model whose values of unknown size would be
// planned as 0 bytes (exit 4, one line naming the first value, its producer and each operator
// with no shape rule); --allow-unknown plans them as 0 bytes; inspect reports them and goes on.
// Then the generator's GPT-2 form with ONNX Runtime's optimizer ops imports with no value of
// unknown size, plans, verifies and runs in the reference executor.
// Oracles: exit statuses and the error line's text, worked out from the model built here.
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "support/plan_checks.h"
#include "support/run_command.h"
#include "support/scratch_dir.h"

using hyperplan::testing::CommandResult;
using hyperplan::testing::Hyperplan;
using hyperplan::testing::LineCount;
using hyperplan::testing::RunCommand;

namespace {

const std::string kCli = HYPERPLAN_CLI_PATH;
const std::string kGen = HYPERPLAN_GEN_PATH;

std::string Temp(const std::string& name) {
  static const hyperplan::testing::ScratchDir scratch("unknown");
  return scratch.File(name);
}

// x [1, 1024] float -> Relu -> r -> com.microsoft.Mystery (no shape rule) -> y -> Relu -> out.
std::string WriteMysteryModel() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(17);
  onnx::OperatorSetIdProto* ms = model.add_opset_import();
  ms->set_domain("com.microsoft");
  ms->set_version(1);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("g");
  onnx::ValueInfoProto* input = graph->add_input();
  input->set_name("x");
  onnx::TypeProto_Tensor* tensor = input->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t dim : {1, 1024}) tensor->mutable_shape()->add_dim()->set_dim_value(dim);
  const auto add_node = [&](const char* name, const char* op, const char* domain, const char* in,
                            const char* out) {
    onnx::NodeProto* node = graph->add_node();
    node->set_name(name);
    node->set_op_type(op);
    node->set_domain(domain);
    node->add_input(in);
    node->add_output(out);
  };
  add_node("relu_in", "Relu", "", "x", "r");
  add_node("mystery", "Mystery", "com.microsoft", "r", "y");
  add_node("relu_out", "Relu", "", "y", "out");
  graph->add_output()->set_name("out");
  const std::string path = Temp("mystery.onnx");
  std::ofstream file(path, std::ios::binary);
  REQUIRE(model.SerializeToOstream(&file));
  return path;
}

TEST_CASE("plan and fit refuse values of unknown size; --allow-unknown plans them as 0 bytes",
          "[cli][unknown]") {
  const std::string model = WriteMysteryModel();
  // y and out are of unknown size: 2 values; x and r are 1*1024*4 = 4096 bytes each.
  const std::string line = model +
                           ": 2 values of unknown size (first: 'y' from node 'mystery' "
                           "(com.microsoft.Mystery): no shape rule for com.microsoft.Mystery); no "
                           "shape rule for com.microsoft.Mystery (1 node); --allow-unknown plans "
                           "them as 0 bytes";
  const CommandResult plan = Hyperplan({"plan", model, "-q"});
  INFO(plan.stderr_text);
  CHECK(plan.exit_code == 4);
  CHECK(LineCount(plan.stderr_text) == 1);
  CHECK_THAT(plan.stderr_text, Catch::Contains(line));

  const CommandResult allowed = Hyperplan({"plan", model, "-q", "--allow-unknown"});
  INFO(allowed.stderr_text);
  CHECK(allowed.exit_code == 0);

  const CommandResult fit = Hyperplan({"fit", model, "-q", "--sweep", "batch=1..2"});
  INFO(fit.stderr_text);
  CHECK(fit.exit_code == 4);
  CHECK_THAT(fit.stderr_text, Catch::Contains("--allow-unknown plans them as 0 bytes"));

  // inspect reports and goes on: the warning names the operator once with its count.
  const CommandResult inspect = Hyperplan({"inspect", model});
  INFO(inspect.stderr_text);
  CHECK(inspect.exit_code == 0);
  CHECK_THAT(inspect.stderr_text,
             Catch::Contains("no shape rule for operator 'com.microsoft.Mystery' (1 node)"));
}

TEST_CASE("the GPT-2 form with ONNX Runtime's optimizer ops plans, verifies and runs",
          "[cli][unknown][generator]") {
  const std::string model = Temp("gpt2-optimized.onnx");
  const CommandResult gen =
      RunCommand({kGen, "--preset", "tiny", "--form", "gpt2-optimized", "-o", model});
  INFO(gen.stdout_text + gen.stderr_text);
  REQUIRE(gen.exit_code == 0);
  const std::vector<std::string> dims = {"--dim",      "batch=1", "--dim",
                                         "sequence=1", "--dim",   "past_sequence=16"};
  // Every value sized: inspect warns of nothing (no rule missing, no unknown size).
  std::vector<std::string> inspect = {"inspect", model};
  inspect.insert(inspect.end(), dims.begin(), dims.end());
  const CommandResult inspected = Hyperplan(inspect);
  INFO(inspected.stderr_text);
  CHECK(inspected.exit_code == 0);
  CHECK(inspected.stderr_text.find("unknown size") == std::string::npos);
  CHECK(inspected.stderr_text.find("no shape rule") == std::string::npos);

  // Planned without --allow-unknown: nothing is left of unknown size to refuse.
  const std::string plan_path = Temp("gpt2-optimized.plan.json");
  std::vector<std::string> plan = {"plan", model, "-q", "-o", plan_path};
  plan.insert(plan.end(), dims.begin(), dims.end());
  const CommandResult planned = Hyperplan(plan);
  INFO(planned.stderr_text);
  REQUIRE(planned.exit_code == 0);
  hyperplan::testing::CheckVerifiesAndRuns(kCli, plan_path, model);
}

}  // namespace
