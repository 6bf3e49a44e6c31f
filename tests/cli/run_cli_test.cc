// `hyperplan run` end to end: every bundled model, planned with and without --budget, runs
// clean for 3 iterations; the size guard and the timing report; run, simulate and verify on
// the profile recorded in the plan unless --hw.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/run_command.h"

using hyperplan::testing::CommandResult;
using hyperplan::testing::Hyperplan;

namespace {

const std::string kSource = HYPERPLAN_SOURCE_DIR;

std::vector<std::string> DimsOf(const std::string& model) {
  if (model.find("decode") != std::string::npos) {
    return {"--dim", "batch=1", "--dim", "sequence=1", "--dim", "past_sequence=16"};
  }
  return {"--dim", "batch=1", "--dim", "sequence=8"};
}

// The no-offload peak `inspect --json` reports.
int64_t PeakBytes(const std::string& model) {
  std::vector<std::string> args = {"inspect", model, "--hw", "supernode", "--json"};
  for (const std::string& dim : DimsOf(model)) args.push_back(dim);
  const CommandResult inspect = Hyperplan(args);
  REQUIRE(inspect.exit_code == 0);
  const size_t at = inspect.stdout_text.find("\"peak_bytes\":");
  REQUIRE(at != std::string::npos);
  return std::stoll(
      inspect.stdout_text.substr(inspect.stdout_text.find_first_of("0123456789", at)));
}

// Plans `model` into `plan_path` (with `extra` flags) and returns the plan's path.
std::string PlanInto(const std::string& model, const std::string& plan_path,
                     const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"plan", model, "--hw", "supernode", "-o", plan_path, "-q"};
  for (const std::string& dim : DimsOf(model)) args.push_back(dim);
  for (const std::string& flag : extra) args.push_back(flag);
  const CommandResult plan = Hyperplan(args);
  INFO(plan.stderr_text);
  REQUIRE(plan.exit_code == 0);
  return plan_path;
}

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("hyperplan-run-" + std::to_string(getpid()) + "-" + name))
      .string();
}

}  // namespace

TEST_CASE(
    "run: every bundled model's plan runs clean for 3 iterations, with and without a "
    "budget") {
  for (const auto& entry : std::filesystem::directory_iterator(kSource + "/models")) {
    if (entry.path().extension() != ".onnx") continue;
    const std::string model = entry.path().string();
    const std::string stem = entry.path().stem().string();
    // Half the no-offload peak, as tests/ort does: most values have to move.
    const std::string budget = std::to_string(PeakBytes(model) / 2) + "B";
    for (const std::vector<std::string>& flags :
         {std::vector<std::string>{}, std::vector<std::string>{"--budget", budget}}) {
      const std::string plan = PlanInto(model, TempPath(stem + ".pb"), flags);
      const CommandResult run =
          Hyperplan({"run", plan, "--model", model, "--hw", "supernode", "--iterations", "3"});
      INFO(stem << (flags.empty() ? "" : " --budget " + budget) << "\n"
                << run.stdout_text << run.stderr_text);
      CHECK(run.exit_code == 0);
      CHECK_THAT(run.stdout_text, Catch::Contains("3 iterations of"));
      CHECK_THAT(run.stdout_text, Catch::Contains("\nok: every step ran"));
      if (!flags.empty()) {
        // Half the peak cannot be met without moving something.
        CHECK_THAT(run.stdout_text, !Catch::Contains(" 0 transfers"));
      }
      std::filesystem::remove(plan);
    }
  }
}

TEST_CASE("run: buffers over --max-memory are refused before anything is allocated") {
  const std::string model = kSource + "/models/llama-tiny-decode.onnx";
  const std::string plan = PlanInto(model, TempPath("max-memory.pb"), {});
  const CommandResult run =
      Hyperplan({"run", plan, "--model", model, "--hw", "supernode", "--max-memory", "1KiB"});
  CHECK(run.exit_code == 2);
  CHECK(run.stdout_text.empty());
  CHECK_THAT(run.stderr_text, Catch::Contains("over --max-memory 1.00 KiB; raise --max-memory"));
  std::filesystem::remove(plan);
}

TEST_CASE("run: --timed reports the measured makespan next to the simulated one") {
  const std::string model = kSource + "/models/llama-tiny-decode.onnx";
  const std::string plan = PlanInto(model, TempPath("timed.pb"), {});
  const CommandResult run = Hyperplan({"run", plan, "--model", model, "--hw", "supernode",
                                       "--iterations", "2", "--timed", "--time-scale", "10"});
  INFO(run.stderr_text);
  CHECK(run.exit_code == 0);
  CHECK_THAT(run.stdout_text, Catch::Contains("timed (x10 wall time per planned ns)"));
  CHECK_THAT(run.stdout_text, Catch::Contains("measured/simulated"));
  std::filesystem::remove(plan);
}

// Issue 33: without a GPU (no CUDA in the build, or none found at run time, as on CI) the CUDA
// backend and calibrate exit 11 with one line saying why; with one, the run ends in its
// timed: line of integers.
TEST_CASE("run --backend cuda and calibrate: one line and exit 11 without a GPU") {
  const std::string model = kSource + "/models/llama-tiny-decode.onnx";
  const std::string plan = PlanInto(model, TempPath("cuda.pb"), {});
  const CommandResult run = Hyperplan(
      {"run", plan, "--model", model, "--hw", "supernode", "--backend", "cuda", "--timed"});
  INFO(run.stdout_text << run.stderr_text);
  if (run.exit_code == 0) {
    CHECK_THAT(run.stdout_text, Catch::Contains("\ntimed: simulated_makespan_ns="));
  } else {
    CHECK(run.exit_code == 11);
    CHECK_THAT(run.stderr_text, Catch::StartsWith("hyperplan: error: "));
    CHECK(std::count(run.stderr_text.begin(), run.stderr_text.end(), '\n') == 1);
    const bool built_without = run.stderr_text.find("built without") != std::string::npos;
    const bool no_device = run.stderr_text.find("cudaGetDeviceCount") != std::string::npos;
    CHECK((built_without || no_device));
    const CommandResult calibrate = Hyperplan({"calibrate", "--quick"});
    CHECK(calibrate.exit_code == 11);
    CHECK(std::count(calibrate.stderr_text.begin(), calibrate.stderr_text.end(), '\n') == 1);
  }
  // Usage errors come first, GPU or not.
  CHECK(Hyperplan({"run", plan, "--model", model, "--hw", "supernode", "--backend", "cuda",
                   "--time-scale", "10"})
            .exit_code == 2);
  CHECK(Hyperplan({"run", plan, "--model", model, "--hw", "supernode", "--gemm"}).exit_code == 2);
  std::filesystem::remove(plan);
}

TEST_CASE("run: a plan file edited so two live blocks share bytes exits 10, naming the rule") {
  const std::string model = kSource + "/models/llama-tiny-decode.onnx";
  const std::string plan_path = PlanInto(model, TempPath("overlap.json"), {});
  nlohmann::json plan = nlohmann::json::parse(hyperplan::testing::ReadWholeFile(plan_path));
  // int64 fields are strings in protobuf's JSON mapping.
  const auto number = [](const nlohmann::json& field) {
    return field.is_string() ? std::stoll(field.get<std::string>()) : field.get<int64_t>();
  };
  const int64_t arena_bytes = number(plan["arena"]["size_bytes"]);
  // The first compute step's output block, moved onto a block already live at that step.
  nlohmann::json& residency = plan["residency"];
  int moved = -1, target = -1;
  for (size_t r = 0; r < residency.size() && moved < 0; ++r) {
    const int32_t opener = residency[r]["opened_by"];
    if (opener < 0 || plan["steps"][opener]["kind"] != "STEP_KIND_COMPUTE") continue;
    const int64_t position = number(plan["steps"][opener]["boundary"]);
    for (size_t q = 0; q < residency.size(); ++q) {
      const int32_t q_opener = residency[q]["opened_by"];
      if (q_opener >= opener || number(residency[q]["bytes"]) == 0) continue;
      if (number(residency[q]["first_step"]) > position ||
          number(residency[q]["last_step"]) < position) {
        continue;
      }
      if (number(residency[q]["offset_bytes"]) + number(residency[r]["bytes"]) > arena_bytes) {
        continue;
      }
      moved = static_cast<int>(r);
      target = static_cast<int>(q);
      break;
    }
  }
  REQUIRE(moved >= 0);
  residency[moved]["offset_bytes"] = residency[target]["offset_bytes"];
  std::ofstream(plan_path) << plan.dump(1);
  const CommandResult run =
      Hyperplan({"run", plan_path, "--model", model, "--hw", "supernode", "--iterations", "3"});
  CHECK(run.exit_code == 10);
  CHECK(hyperplan::testing::LineCount(run.stderr_text) == 1);
  CHECK_THAT(run.stderr_text, Catch::StartsWith("hyperplan: error: " + plan_path + ": step "));
  CHECK_THAT(run.stderr_text, Catch::Contains(", iteration 1: allocates '"));
  CHECK_THAT(run.stderr_text, Catch::Contains("rule: blocks never overlap in time and space"));
  std::filesystem::remove(plan_path);
}

TEST_CASE("run, simulate and verify take the profile recorded in the plan unless --hw") {
  // Planned on h100-sxm, not the embedded default (supernode): a command that took the default
  // instead would name 'ascend-910c-supernode' (or fail to map the plan's tiers onto it).
  const std::string model = kSource + "/models/llama-tiny-decode.onnx";
  const std::string plan_path = TempPath("recorded.pb");
  std::vector<std::string> args = {"plan", model, "--hw", "h100-sxm", "-o", plan_path, "-q"};
  for (const std::string& dim : DimsOf(model)) args.push_back(dim);
  REQUIRE(Hyperplan(args).exit_code == 0);
  const std::string said = "hyperplan: profile 'h100-sxm' as recorded in " + plan_path;
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"run", plan_path, "--model", model},
        std::vector<std::string>{"simulate", plan_path, "--model", model},
        std::vector<std::string>{"verify", plan_path, "--model", model}}) {
    const CommandResult recorded = Hyperplan(command);
    INFO(command[0] << "\n" << recorded.stdout_text << recorded.stderr_text);
    CHECK(recorded.exit_code == 0);
    CHECK_THAT(recorded.stdout_text, Catch::Contains("'h100-sxm'"));
    CHECK_THAT(recorded.stderr_text, Catch::Contains(said));
    // --hw names the profile itself: nothing to say; -q: nothing said either.
    std::vector<std::string> named = command;
    named.insert(named.end(), {"--hw", "h100-sxm"});
    const CommandResult with_hw = Hyperplan(named);
    CHECK(with_hw.exit_code == 0);
    CHECK_THAT(with_hw.stderr_text, !Catch::Contains("as recorded in"));
    std::vector<std::string> quiet = command;
    quiet.push_back("-q");
    CHECK(Hyperplan(quiet).stderr_text.empty());
  }
  std::filesystem::remove(plan_path);
}
