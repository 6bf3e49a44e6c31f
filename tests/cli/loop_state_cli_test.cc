// End-to-end: the generator's exporter-named decode steps (hyperplan-gen --loop-form) import
// with every size known, plan with their loop state found by convention (plan -v and
// --summary-json's loop_state say which rule), verify, and run in the reference executor; an
// exporter's config beside the model binds the dims.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/plan_checks.h"
#include "support/run_command.h"
#include "support/scratch_dir.h"

using hyperplan::testing::CommandResult;
using hyperplan::testing::Hyperplan;
using hyperplan::testing::RunCommand;
using hyperplan::testing::ScratchDir;

namespace {

const ScratchDir& Scratch() {
  static const ScratchDir scratch("loop-state");
  return scratch;
}

std::string Generate(const std::string& form, const std::string& directory) {
  std::filesystem::create_directories(Scratch().File(directory));
  const std::string model = Scratch().File(directory + "/model.onnx");
  const CommandResult gen = RunCommand({HYPERPLAN_GEN_PATH, "--loop-form", form, "-o", model});
  REQUIRE(gen.exit_code == 0);
  return model;
}

// "output -> input (rule)" for each loop_state entry of a --summary-json line.
std::vector<std::string> LoopState(const std::string& summary_line) {
  const nlohmann::json summary = nlohmann::json::parse(summary_line);
  std::vector<std::string> entries;
  for (const auto& pair : summary.at("loop_state")) {
    entries.push_back(pair.value("output", "") + " -> " + pair.at("input").get<std::string>() +
                      " (" + pair.at("rule").get<std::string>() + ")");
  }
  return entries;
}

// Plans `model` (extra flags appended), then verifies and runs the plan; returns the summary.
std::string PlanVerifyRun(const std::string& model, std::vector<std::string> extra) {
  const std::string plan = model + ".plan.json";
  std::vector<std::string> args = {"plan", model, "--summary-json", "-v", "-o", plan};
  args.insert(args.end(), extra.begin(), extra.end());
  const CommandResult planned = Hyperplan(args);
  INFO(planned.stderr_text);
  REQUIRE(planned.exit_code == 0);
  // No value of unknown size: the importer warns about none.
  CHECK(planned.stderr_text.find("unknown size") == std::string::npos);
  hyperplan::testing::CheckVerifiesAndRuns(HYPERPLAN_CLI_PATH, plan, model);
  return planned.stdout_text + "\n" + planned.stderr_text;
}

}  // namespace

TEST_CASE("loop state cli: Optimum's Whisper decoder, its config.json binding the dims") {
  const std::string model = Generate("whisper-optimum", "whisper-optimum");
  std::ofstream(Scratch().File("whisper-optimum/config.json"))
      << R"({"model_type": "whisper", "max_target_positions": 448, "max_source_positions": 1500})";
  const std::string out = PlanVerifyRun(model, {});
  const std::string summary = out.substr(0, out.find('\n'));
  CHECK(LoopState(summary) ==
        std::vector<std::string>{"present.0.decoder.key -> past_key_values.0.decoder.key "
                                 "(encoder-decoder self kv (optimum))",
                                 "present.0.decoder.value -> past_key_values.0.decoder.value "
                                 "(encoder-decoder self kv (optimum))",
                                 "present.1.decoder.key -> past_key_values.1.decoder.key "
                                 "(encoder-decoder self kv (optimum))",
                                 "present.1.decoder.value -> past_key_values.1.decoder.value "
                                 "(encoder-decoder self kv (optimum))",
                                 " -> past_key_values.0.encoder.key (cross-attention cache "
                                 "(read-only))",
                                 " -> past_key_values.0.encoder.value (cross-attention cache "
                                 "(read-only))",
                                 " -> past_key_values.1.encoder.key (cross-attention cache "
                                 "(read-only))",
                                 " -> past_key_values.1.encoder.value (cross-attention cache "
                                 "(read-only))"});
  // -v: the config read and what it bound (448 - 1 = 447 past tokens, 1500 encoder frames).
  CHECK(out.find("config.json: whisper context length 448 (from max_target_positions)") !=
        std::string::npos);
  CHECK(out.find("encoder_sequence_length_out=1500") != std::string::npos);
  CHECK(out.find("past_decoder_sequence_length=447") != std::string::npos);
  CHECK(out.find("loop state 'present.0.decoder.key' -> 'past_key_values.0.decoder.key' "
                 "(encoder-decoder self kv (optimum))") != std::string::npos);
}

TEST_CASE("loop state cli: ORT's Whisper names, dims bound by hand") {
  const std::string model = Generate("whisper-ort", "whisper-ort");
  const std::string out =
      PlanVerifyRun(model, {"--dim", "batch_size=1", "--dim", "past_sequence_length=15", "--dim",
                            "encoder_sequence_length=30"});
  const std::vector<std::string> state = LoopState(out.substr(0, out.find('\n')));
  REQUIRE(state.size() == 8);  // 2 layers x (2 self pairs + 2 cross read-only)
  CHECK(state[0] ==
        "present_key_self_0 -> past_key_self_0 (encoder-decoder self kv (ort whisper))");
  CHECK(state[4] == " -> past_key_cross_0 (cross-attention cache (read-only))");
}

TEST_CASE("loop state cli: a hybrid's conv, attention and recurrent state, by genai_config") {
  const std::string model = Generate("hybrid", "hybrid");
  std::ofstream(Scratch().File("hybrid/genai_config.json"))
      << R"({"model": {"context_length": 64}})";
  const std::string out = PlanVerifyRun(model, {});
  CHECK(LoopState(out.substr(0, out.find('\n'))) ==
        std::vector<std::string>{
            "present_conv.0 -> past_conv.0 (conv / ssm / recurrent state)",
            "present.1.key -> past_key_values.1.key (optimum / ort-genai kv)",
            "present.1.value -> past_key_values.1.value (optimum / ort-genai kv)",
            "present_recurrent.2 -> past_recurrent.2 (conv / ssm / recurrent state)"});
  // 64 - 1 = 63 past tokens.
  CHECK(out.find("past_sequence_length=63") != std::string::npos);
}
