// End-to-end: `hyperplan-gen --from-hf-config` writes a model that hyperplan imports with the
// published model's KV-cache bytes, and its command-line errors are one line naming the file.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/run_command.h"

namespace {

using hyperplan::testing::CommandResult;
using hyperplan::testing::RunCommand;

const std::string kConfigs = std::string(HYPERPLAN_SOURCE_DIR) + "/tests/data/hf-configs/";

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("hyperplan-hf-" + std::to_string(getpid()) + "-" + name))
      .string();
}

// Bytes of one value class in `hyperplan inspect --json` (int64 fields are JSON strings).
int64_t ClassBytes(const nlohmann::json& report, const std::string& value_class) {
  for (const auto& entry : report.at("classes")) {
    if (entry.at("value_class") == value_class)
      return std::stoll(entry.at("bytes").get<std::string>());
  }
  return -1;
}

nlohmann::json InspectDecode(const std::string& config, int64_t past) {
  const std::string model = TempPath(std::filesystem::path(config).stem().string() + ".onnx");
  const CommandResult gen = RunCommand(
      {HYPERPLAN_GEN_PATH, "--from-hf-config", kConfigs + config, "--form", "decode", "-o", model});
  INFO(gen.stderr_text);
  REQUIRE(gen.exit_code == 0);
  const CommandResult inspect = RunCommand(
      {HYPERPLAN_CLI_PATH, "inspect", model, "--hw", "h100-sxm", "--dim", "batch=1", "--dim",
       "sequence=1", "--dim", "past_sequence=" + std::to_string(past), "--json"});
  std::filesystem::remove(model);
  INFO(inspect.stderr_text);
  REQUIRE(inspect.exit_code == 0);
  return nlohmann::json::parse(inspect.stdout_text);
}

}  // namespace

TEST_CASE("hyperplan imports Llama-3.1-8B from its config with the published KV-cache bytes") {
  const nlohmann::json report = InspectDecode("llama-3.1-8b.json", 1024);
  // Per token and layer: key + value, 8 KV heads of 128, bf16: 4,096 bytes; 32 layers.
  // past (1024 tokens) 134,217,728 + present (1025 tokens) 134,348,800.
  CHECK(ClassBytes(report, "kv_cache") == 268'566'528);
  // Parameters 16,060,522,496 (hf_model_bytes_test) and, in the default fused form,
  // RotaryEmbedding's cos and sin caches 2 * 131072 * 64 * 2 = 33,554,432: 16,094,076,928,
  // plus the graph's few shape constants (well under 4 KiB).
  const int64_t weight_bytes = ClassBytes(report, "weight");
  CHECK(weight_bytes >= 16'094'076'928);
  CHECK(weight_bytes < 16'094'076'928 + 4096);
}

TEST_CASE("hyperplan sizes the latent cache of a model with multi-head latent attention") {
  const nlohmann::json report = InspectDecode("tiny-deepseek-v3.json", 16);
  // One row of kv_lora_rank 32 + rotary 8 float32 values per token and layer: 160 bytes;
  // 3 layers, past 16 tokens (7,680) + present 17 tokens (8,160).
  CHECK(ClassBytes(report, "kv_cache") == 15'840);
}

TEST_CASE("hyperplan-gen --from-hf-config errors are one line naming the file") {
  const std::string config = TempPath("no-dtype.json");
  std::ofstream(config) << R"({"model_type": "mistral", "hidden_size": 64,
      "intermediate_size": 128, "num_hidden_layers": 1, "num_attention_heads": 4,
      "vocab_size": 64, "max_position_embeddings": 64})";
  const std::string model = TempPath("no-dtype.onnx");
  const CommandResult missing =
      RunCommand({HYPERPLAN_GEN_PATH, "--from-hf-config", config, "-o", model});
  CHECK(missing.exit_code == 4);  // the README's table: the model is malformed
  CHECK(missing.stderr_text ==
        "hyperplan-gen: error: " + config + ": field 'torch_dtype': missing (or pass --dtype)\n");
  CHECK_FALSE(std::filesystem::exists(model));
  const CommandResult given =
      RunCommand({HYPERPLAN_GEN_PATH, "--from-hf-config", config, "--dtype", "fp16", "-o", model});
  CHECK(given.exit_code == 0);
  CHECK(std::filesystem::exists(model));

  const CommandResult both =
      RunCommand({HYPERPLAN_GEN_PATH, "--from-hf-config", config, "--preset", "tiny", "-o", model});
  CHECK(both.exit_code != 0);
  CHECK_THAT(both.stderr_text, Catch::Contains("excludes"));
  std::filesystem::remove(config);
  std::filesystem::remove(model);
}

TEST_CASE("hyperplan-gen's form flags: defaults and refusals") {
  const std::string model = TempPath("flags.onnx");
  auto gen = [&](std::vector<std::string> args) {
    args.insert(args.begin(), HYPERPLAN_GEN_PATH);
    args.insert(args.end(), {"-o", model});
    return RunCommand(args);
  };
  // Usage errors (exit 2), each one line naming the flag; nothing is written.
  // A quantized cache is GroupQueryAttention's: the unfused form refuses it.
  const CommandResult kv =
      gen({"--preset", "tiny", "--attention", "unfused", "--kv-dtype", "int8"});
  CHECK(kv.exit_code == 2);
  CHECK_THAT(kv.stderr_text, Catch::StartsWith("hyperplan-gen: error: --kv-dtype int8:"));
  // The shared buffer is the decode form's; fp8 cannot pass ONNX 1.12's --check.
  CHECK(gen({"--preset", "tiny", "--kv-layout", "shared"}).exit_code == 2);
  CHECK(gen({"--preset", "tiny", "--kv-dtype", "fp8", "--check"}).exit_code == 2);
  CHECK(gen({"--preset", "tiny", "--kv-scales", "channel"}).exit_code == 2);  // no quantized cache
  CHECK(gen({"--preset", "tiny", "--kv-dtype", "bf16"}).exit_code == 2);      // tiny is float32
  CHECK(gen({"--preset", "tiny", "--weights", "bf16", "--dtype", "fp16"}).exit_code == 2);
  CHECK(gen({"--preset", "tiny", "--form", "train", "--logits", "last"}).exit_code == 2);
  CHECK(gen({"--preset", "tiny", "--form", "train", "--weights", "int4"}).exit_code == 2);
  CHECK(gen({"--from-hf-config", kConfigs + "tiny-deepseek-v3.json", "--attention", "fused"})
            .exit_code == 2);
  CHECK(gen({"--preset", "tiny", "--weights", "inline"}).exit_code == 2);  // now --weight-storage
  CHECK_FALSE(std::filesystem::exists(model));

  // The defaults: fused attention and last-position logits, said in the metadata.
  const CommandResult made = gen({"--preset", "tiny", "--form", "decode"});
  INFO(made.stderr_text);
  REQUIRE(made.exit_code == 0);
  const CommandResult inspect =
      RunCommand({HYPERPLAN_CLI_PATH, "inspect", model, "--hw", "h100-sxm", "--dim", "batch=1",
                  "--dim", "sequence=1", "--dim", "past_sequence=16", "--json"});
  INFO(inspect.stderr_text);
  REQUIRE(inspect.exit_code == 0);
  // tiny: 4 layers * (key + value) * 2 KV heads * 16 * 4 bytes = 1,024 bytes per token;
  // past 16 tokens (16,384) + present 17 tokens (17,408).
  CHECK(ClassBytes(nlohmann::json::parse(inspect.stdout_text), "kv_cache") == 33'792);
  CHECK(gen({"--preset", "tiny", "--weight-storage", "external"}).exit_code == 0);
  std::filesystem::remove(model);
}
