// hyperplan-gen: writes Llama-style decoder models (dense or mixture-of-experts) as ONNX, in a
// prefill or decode form, with standard ai.onnx opset-17 ops or ONNX Runtime's fused contrib ops.
// Tiny presets carry real random weights inline; real-scale presets reference a weights file
// that is never written. This file only parses flags and reports; decoder.h builds the model.
// Exit codes follow hyperplan's (README.md, "Exit codes"): 0 written, 1 internal error, 2 bad
// usage (flags CLI11 refuses, or values the presets cannot take), 4 the written model fails
// --check, 9 the output cannot be written.
// Cost: see decoder.h. Limits: see model_config.h for what each preset leaves out.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <map>
#include <string>

#include "build_options.h"
#include "decoder.h"
#include "gpt2_optimized.h"
#include "hf_config.h"
#include "hyperplan/error.h"
#include "model_check.h"
#include "model_config.h"
#include "model_writer.h"
#include "train_step.h"

namespace {

using hyperplan::gen::BuildOptions;
using hyperplan::gen::ModelConfig;

constexpr int kUsageExit = hyperplan::ExitCode(hyperplan::ErrorKind::kUsage);
constexpr int kCheckFailedExit = hyperplan::ExitCode(hyperplan::ErrorKind::kModel);
constexpr int kInternalExit = hyperplan::ExitCode(hyperplan::ErrorKind::kInternal);

int Fail(int exit_code, const std::string& message) {
  fmt::print(stderr, "hyperplan-gen: error: {}\n", message);
  return exit_code;
}

// protobuf refuses messages over 2 GiB; stay well below it with inline weights.
constexpr int64_t kMaxInlineWeightBytes = int64_t{1} << 30;

std::string PresetTable() {
  std::string table = "Presets:\n";
  for (const auto& name : hyperplan::gen::PresetNames()) {
    const ModelConfig c = *hyperplan::gen::FindPreset(name);
    table += fmt::format(
        "  {:<12} {} layers, hidden {}, heads {}/{} kv of {}, intermediate {}, vocab {}, {}, {} "
        "weights",
        name, c.layers, c.hidden, c.heads, c.kv_heads, c.head_dim, c.intermediate, c.vocab,
        hyperplan::gen::ElemTypeName(c.dtype), c.real_scale ? "external" : "inline");
    if (c.routed_experts > 0)
      table += fmt::format(
          ";\n               MoE: {} routed experts (top {}) of width {} + {} shared, first {} "
          "layers dense",
          c.routed_experts, c.experts_per_token, c.moe_intermediate, c.shared_experts,
          c.first_dense_layers);
    if (!c.note.empty()) table += ";\n               NOTE: " + c.note;
    table += "\n";
  }
  return table;
}

std::map<std::string, int64_t> CheckDims(const std::vector<std::string>& flags, bool decode) {
  std::map<std::string, int64_t> dims = {{"batch", 1}, {"sequence", 4}};
  if (decode) dims["past_sequence"] = 3;
  for (const auto& flag : flags) {
    const auto eq = flag.find('=');
    if (eq == std::string::npos)
      throw std::invalid_argument("--dim: expected name=N, got '" + flag + "'");
    try {
      dims[flag.substr(0, eq)] = std::stoll(flag.substr(eq + 1));
    } catch (const std::logic_error&) {
      throw std::invalid_argument("--dim: expected name=N with an integer N, got '" + flag + "'");
    }
  }
  if (decode && !dims.count("total_sequence"))
    dims["total_sequence"] = dims["past_sequence"] + dims["sequence"];
  return dims;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "hyperplan-gen: writes Llama-style decoder ONNX models (dense or MoE) for the planner's "
      "tests"};
  app.footer(PresetTable() +
             "Weights are random (fixed-seed PRNG keyed by tensor name); the same flags give a "
             "byte-identical file.");
  std::string preset = "tiny";
  std::string hf_config;
  std::string form = "prefill";
  std::string ops = "standard";
  std::string dtype;
  std::string weights;
  std::string weights_file;
  std::string output;
  int64_t layers = 0;
  int64_t experts = 0;
  int64_t kv_heads = 0;
  uint64_t seed = 1;
  bool fake_quant = false;
  bool check = false;
  std::vector<std::string> check_dims;
  CLI::Option* preset_option = app.add_option("--preset", preset, "Model dimensions")
                                   ->check(CLI::IsMember(hyperplan::gen::PresetNames()));
  app.add_option("--from-hf-config", hf_config,
                 "Model dimensions from a Hugging Face config.json (model_type llama, mistral, "
                 "qwen2, mixtral, deepseek_v3); weights external unless --weights inline")
      ->excludes(preset_option);
  app.add_option("--form", form,
                 "prefill: input_ids/position_ids in, logits and KV cache out; decode: adds "
                 "past_key_values; train: one training step (forward, cross-entropy, backward, "
                 "Adam), dense presets only; gpt2-optimized: a GPT-2 decoder with ONNX "
                 "Runtime's transformer-optimizer ops (EmbedLayerNormalization, Attention with a "
                 "packed past_<i>, SkipLayerNormalization, FastGelu/BiasGelu), float32")
      ->check(CLI::IsMember({"prefill", "decode", "train", "gpt2-optimized"}));
  app.add_option(
         "--ops", ops,
         "standard: ai.onnx opset 17 only; contrib: ONNX Runtime fused ops "
         "(SimplifiedLayerNormalization, SkipSimplifiedLayerNormalization, RotaryEmbedding, "
         "GroupQueryAttention, 4-bit MatMulNBits)")
      ->check(CLI::IsMember({"standard", "contrib"}));
  app.add_option("--layers", layers,
                 "Override the layer count (MoE presets keep their dense first layers)")
      ->check(CLI::PositiveNumber);
  app.add_option("--kv-heads", kv_heads,
                 "Override the KV head count (must divide the head count; equal to it gives "
                 "multi-head attention)")
      ->check(CLI::PositiveNumber);
  app.add_option("--experts", experts, "Override the routed expert count (MoE presets)")
      ->check(CLI::PositiveNumber);
  app.add_option("--dtype", dtype, "Override the element type: float32, bf16, fp16")
      ->check(CLI::IsMember({"float32", "fp32", "bf16", "bfloat16", "fp16", "float16"}));
  app.add_option("--weights", weights,
                 "inline (raw_data) or external (references to a file never written); "
                 "default: inline for tiny presets, external for real-scale ones")
      ->check(CLI::IsMember({"inline", "external"}));
  app.add_option("--weights-file", weights_file,
                 "External data location, relative to the model (default <output name>.data)");
  app.add_option("--seed", seed, "Weight PRNG seed");
  app.add_flag("--fake-quant", fake_quant,
               "Standard ops: round projection weights to the 4-bit grid --ops contrib "
               "stores, so both forms compute the same function");
  app.add_flag("--check", check,
               "Run the ONNX checker and shape inference on the result and report");
  app.add_option("--dim", check_dims,
                 "name=N binding for --check's shape inference (default batch=1 sequence=4 "
                 "past_sequence=3 total_sequence=past+sequence)");
  app.add_option("-o,--output", output, "Model file to write")->required();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // --help and --version are "errors" with exit code 0 in CLI11; everything else is usage.
    if (error.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(error);
    return Fail(kUsageExit, error.what());
  }

  try {
    // Read before anything is built or written, so a bad --dim writes no file.
    const std::map<std::string, int64_t> dims =
        CheckDims(check_dims, form == "decode" || form == "gpt2-optimized");
    ModelConfig config;
    if (!hf_config.empty()) {
      const hyperplan::gen::HfConfig read = hyperplan::gen::ReadHfConfig(hf_config);
      config = read.config;
      if (!read.dtype_given && dtype.empty())
        throw hyperplan::Error(hyperplan::ErrorKind::kModel,
                               hf_config + ": field 'torch_dtype': missing (or pass --dtype)");
      fmt::print(
          "{}: {} layers, hidden {}, heads {}/{} kv of {}, intermediate {}, vocab {}, {}{}{}\n",
          hf_config, config.layers, config.hidden, config.heads, config.kv_heads, config.head_dim,
          config.intermediate, config.vocab,
          read.dtype_given ? hyperplan::gen::ElemTypeName(config.dtype) : "dtype from --dtype",
          config.routed_experts > 0
              ? fmt::format("; {} routed experts (top {}) of {} + {} shared, first {} dense",
                            config.routed_experts, config.experts_per_token,
                            config.moe_intermediate, config.shared_experts,
                            config.first_dense_layers)
              : std::string(),
          hyperplan::gen::DescribeVariations(config));
      for (const std::string& note : read.notes) fmt::print("note: {}\n", note);
    } else {
      config = *hyperplan::gen::FindPreset(preset);
    }
    if (layers > 0) {
      config.layers = layers;
      config.first_dense_layers = std::min(config.first_dense_layers, layers);
    }
    if (kv_heads > 0) {
      if (config.IsMla())
        throw std::invalid_argument("--kv-heads: latent attention caches one row per token");
      config.kv_heads = kv_heads;
    }
    if (experts > 0) {
      if (config.routed_experts == 0) throw std::invalid_argument("--experts needs an MoE preset");
      config.routed_experts = experts;
      config.experts_per_token = std::min(config.experts_per_token, experts);
    }
    if (!dtype.empty()) config.dtype = *hyperplan::gen::ParseElemType(dtype);
    if (const std::string error = hyperplan::gen::ValidateConfig(config); !error.empty())
      throw std::invalid_argument(error);

    BuildOptions options;
    options.form = form == "decode"  ? hyperplan::gen::Form::kDecode
                   : form == "train" ? hyperplan::gen::Form::kTrain
                                     : hyperplan::gen::Form::kPrefill;
    options.ops =
        ops == "contrib" ? hyperplan::gen::OpSet::kContrib : hyperplan::gen::OpSet::kStandard;
    options.seed = seed;
    options.fake_quant = fake_quant;
    options.external_weights = weights.empty() ? config.real_scale : weights == "external";
    options.weights_location = weights_file.empty()
                                   ? std::filesystem::path(output).filename().string() + ".data"
                                   : weights_file;
    if (fake_quant && options.ops == hyperplan::gen::OpSet::kContrib)
      throw std::invalid_argument(
          "--fake-quant applies to --ops standard (contrib is already 4-bit)");

    const auto start = std::chrono::steady_clock::now();
    hyperplan::gen::BuildStats stats;
    const onnx::ModelProto model = form == "gpt2-optimized"
                                       ? hyperplan::gen::BuildGpt2Optimized(config, options, &stats)
                                   : options.form == hyperplan::gen::Form::kTrain
                                       ? hyperplan::gen::BuildTrainStep(config, options, &stats)
                                       : hyperplan::gen::BuildDecoder(config, options, &stats);
    if (!options.external_weights && stats.weight_bytes > kMaxInlineWeightBytes)
      throw std::invalid_argument(
          fmt::format("{} bytes of weights are too many to inline; use --weights external",
                      stats.weight_bytes));
    const int64_t file_bytes = hyperplan::gen::WriteModelAtomically(model, output);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fmt::print("{}: {} nodes, {} weights ({} bytes{}), file {} bytes, {:.2f} s\n", output,
               stats.node_count, stats.weight_count, stats.weight_bytes,
               options.external_weights
                   ? fmt::format(", external in {} up to byte {}, not written",
                                 options.weights_location, stats.weights_file_bytes)
                   : std::string(", inline"),
               file_bytes, seconds);

    if (check) {
      const auto report = hyperplan::gen::CheckModel(model, dims);
      for (const auto& line : report.lines) fmt::print("  {}\n", line);
      if (!report.ok) return Fail(kCheckFailedExit, output + ": fails --check (see above)");
    }
  } catch (const std::invalid_argument& e) {
    return Fail(kUsageExit, e.what());  // flag values the presets cannot take
  } catch (const hyperplan::Error& e) {
    return Fail(hyperplan::ExitCode(e.kind()), e.what());  // the output cannot be written
  } catch (const std::exception& e) {
    return Fail(kInternalExit, std::string("internal error: ") + e.what());
  }
  return 0;
}
