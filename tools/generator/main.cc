// hyperplan-gen: writes Llama-style decoder models (dense or mixture-of-experts) as ONNX, in a
// prefill, decode or training form. By default prefill and decode are what deployments run:
// fused attention (ONNX Runtime's GroupQueryAttention), weights in the config's format (its
// dtype, or the fp8 blocks of its quantization_config), logits of the last position only;
// --attention, --weights, --kv-dtype, --logits and --ops (contrib norms) choose otherwise,
// independently. Tiny presets carry real random weights inline; real-scale presets reference a
// weights file that is never written. This file only parses flags, resolves their defaults and
// reports; decoder.h builds the model.
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
#include "loop_state_forms.h"
#include "model_check.h"
#include "model_config.h"
#include "model_writer.h"
#include "moe_forms.h"
#include "swin_form.h"
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

std::map<std::string, int64_t> CheckDims(const std::vector<std::string>& flags, bool decode,
                                         bool shared_kv) {
  std::map<std::string, int64_t> dims = {{"batch", 1}, {"sequence", 4}};
  if (decode) dims["past_sequence"] = 3;
  if (shared_kv) dims["max_length"] = 16;  // the shared buffer (--kv-layout shared)
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

struct Flags {
  std::string preset = "tiny";
  std::string hf_config;
  std::string form = "prefill";
  std::string ops = "standard";
  std::string attention;  // empty: fused (unfused for --form train)
  std::string weights;    // empty: the config's format
  std::string kv_dtype;   // empty: the activation type
  std::string kv_scales;  // empty: per tensor (quantized caches only)
  std::string kv_layout = "separate";
  std::string logits;  // empty: last (all for --form train)
  std::string dtype;
  std::string weight_storage;
  std::string weights_file;
  std::string output;
  int64_t layers = 0;
  int64_t experts = 0;
  int64_t kv_heads = 0;
  uint64_t seed = 1;
  bool fake_quant = false;
  bool check = false;
  std::vector<std::string> check_dims;
  std::string loop_form;
  std::string moe_form;
  std::string train_attention;  // empty: recompute (--form train only)
};

void AddModelFlags(CLI::App& app, Flags& f) {
  CLI::Option* preset_option = app.add_option("--preset", f.preset, "Model dimensions")
                                   ->check(CLI::IsMember(hyperplan::gen::PresetNames()));
  app.add_option("--from-hf-config", f.hf_config,
                 "Model dimensions from a Hugging Face config.json (model_type llama, mistral, "
                 "qwen2, mixtral, deepseek_v3); weights external unless --weight-storage inline")
      ->excludes(preset_option);
  app.add_option("--form", f.form,
                 "prefill: input_ids/position_ids in, logits and KV cache out; decode: adds "
                 "past_key_values; train: one training step (forward, cross-entropy, backward, "
                 "Adam), dense presets only; gpt2-optimized: a GPT-2 decoder with ONNX "
                 "Runtime's transformer-optimizer ops (EmbedLayerNormalization, Attention with a "
                 "packed past_<i>, SkipLayerNormalization, FastGelu/BiasGelu), float32; the "
                 "form flags below do not apply to it; swin: a small Swin-class image "
                 "classifier as torch.onnx exports torchvision swin_t, its window sizes computed "
                 "from the input's Shape (swin_form.h); of the flags below only --weight-storage, "
                 "--weights-file and --seed apply")
      ->check(CLI::IsMember({"prefill", "decode", "train", "gpt2-optimized", "swin"}));
  app.add_option("--layers", f.layers,
                 "Override the layer count (MoE presets keep their dense first layers)")
      ->check(CLI::PositiveNumber);
  app.add_option("--kv-heads", f.kv_heads,
                 "Override the KV head count (must divide the head count; equal to it gives "
                 "multi-head attention)")
      ->check(CLI::PositiveNumber);
  app.add_option("--experts", f.experts, "Override the routed expert count (MoE presets)")
      ->check(CLI::PositiveNumber);
  app.add_option("--dtype", f.dtype, "Override the element type: float32, bf16, fp16")
      ->check(CLI::IsMember({"float32", "fp32", "bf16", "bfloat16", "fp16", "float16"}));
  app.add_option("--seed", f.seed, "Weight PRNG seed");
}

void AddFormFlags(CLI::App& app, Flags& f) {
  app.add_option(
         "--attention", f.attention,
         "fused: com.microsoft GroupQueryAttention, KV cache in BNSH (default for prefill "
         "and decode); unfused: standard ops with the KV heads repeated (train's only form)")
      ->check(CLI::IsMember({"fused", "unfused"}));
  app.add_option("--weights", f.weights,
                 "Stored projection weights: bf16 or fp16 (plain MatMul, also the element type), "
                 "fp8 (float8e4m3fn codes, 128x128 block scales), int8 or int4 (MatMulNBits, "
                 "block 32), mxfp4 (routed experts only, --moe-form gather: e2m1 codes with an "
                 "8-bit exponent per 32); default: the config's dtype, or its fp8 "
                 "quantization_config, or mxfp4 experts for a gpt_oss config in the gather form")
      ->check(CLI::IsMember({"bf16", "fp16", "fp8", "int8", "int4", "mxfp4"}));
  app.add_option("--kv-dtype", f.kv_dtype,
                 "KV cache element type: bf16, fp16 (must be the activation type); int8, fp8: "
                 "GroupQueryAttention's quantized cache with float32 scales (fused attention "
                 "only); default: the activation type")
      ->check(CLI::IsMember({"bf16", "fp16", "fp8", "int8"}));
  app.add_option("--kv-scales", f.kv_scales,
                 "Scales of a quantized cache: tensor (one, [1]; default) or channel "
                 "([1, kv_heads, 1, head_dim])")
      ->check(CLI::IsMember({"tensor", "channel"}));
  app.add_option("--kv-layout", f.kv_layout,
                 "separate: past [.., past_sequence, ..] in, present [.., total_sequence, ..] out "
                 "(default); shared: past and present one max_length buffer, seqlens_k and "
                 "total_sequence_length graph inputs (ORT GenAI's past_present_share_buffer; "
                 "decode, fused attention)")
      ->check(CLI::IsMember({"separate", "shared"}));
  app.add_option("--logits", f.logits,
                 "last: the LM head runs on the last position only, as runtimes do (default for "
                 "prefill and decode); all: every position (train's only form)")
      ->check(CLI::IsMember({"last", "all"}));
  app.add_option("--ops", f.ops,
                 "standard: RMSNorm as ai.onnx ops; contrib: SimplifiedLayerNormalization and "
                 "SkipSimplifiedLayerNormalization, and int4 weights unless --weights says "
                 "otherwise (onnxruntime-genai's int4 layout)")
      ->check(CLI::IsMember({"standard", "contrib"}));
  app.add_option("--weight-storage", f.weight_storage,
                 "inline (raw_data) or external (references to a file never written); "
                 "default: inline for tiny presets, external for real-scale ones")
      ->check(CLI::IsMember({"inline", "external"}));
  app.add_option("--weights-file", f.weights_file,
                 "External data location, relative to the model (default <output name>.data)");
  app.add_option("--moe-form", f.moe_form,
                 "MoE presets: dense (default: every expert on every token, unpicked ones gated "
                 "by zero); ort (one com.microsoft MoE node per layer on stacked expert weights, "
                 "QMoE with --weights int4|int8, as ONNX Runtime GenAI exports Mixtral); gather "
                 "(TopK, then the picked experts' stacked weights gathered by index)")
      ->check(CLI::IsMember({"dense", "ort", "gather"}));
  app.add_option("--train-attention", f.train_attention,
                 "--form train: recompute (default: the backward recomputes the attention "
                 "probabilities from the stashed queries and keys, as PyTorch SDPA and "
                 "FlashAttention do) or stash (the forward's [batch, heads, sequence, sequence] "
                 "probabilities stay live until the backward, eager attention)")
      ->check(CLI::IsMember({"recompute", "stash"}));
  app.add_flag("--fake-quant", f.fake_quant,
               "Plain weights: round projection weights to the 4-bit grid --weights int4 "
               "stores, so both forms compute the same function");
}

void AddOutputFlags(CLI::App& app, Flags& f) {
  app.add_flag("--check", f.check,
               "Run the ONNX checker and shape inference on the result and report");
  app.add_option("--dim", f.check_dims,
                 "name=N binding for --check's shape inference (default batch=1 sequence=4 "
                 "past_sequence=3 total_sequence=past+sequence, max_length=16 with "
                 "--kv-layout shared)");
  app.add_option("--loop-form", f.loop_form,
                 "Instead of a preset: a tiny decode step whose loop state is named as an "
                 "exporter names it (loop_state_forms.h): whisper-optimum, whisper-ort, hybrid")
      ->check(CLI::IsMember(hyperplan::gen::LoopStateFormNames()));
  app.add_option("-o,--output", f.output, "Model file to write")->required();
}

// --weights bf16|fp16 are plain weights in that type, so the model's element type too.
void ApplyPlainWeightType(const Flags& f, ModelConfig& config) {
  if (f.weights != "bf16" && f.weights != "fp16") return;
  const hyperplan::gen::ElemType type = *hyperplan::gen::ParseElemType(f.weights);
  if (!f.dtype.empty() && *hyperplan::gen::ParseElemType(f.dtype) != type)
    throw std::invalid_argument(
        fmt::format("--weights {} with --dtype {}: plain weights are in the model's element type",
                    f.weights, f.dtype));
  config.dtype = type;
}

// --kv-dtype bf16|fp16 name the activation type; int8|fp8 are GroupQueryAttention's quantized
// cache, which only the fused form has (standard ops would need QuantizeLinear and
// DequantizeLinear around a Concat, and ONNX 1.12 has no float8 type for them).
void ResolveKvCache(const Flags& f, const ModelConfig& config, BuildOptions& o) {
  using hyperplan::gen::KvCache;
  const bool quantized = f.kv_dtype == "int8" || f.kv_dtype == "fp8";
  if (!f.kv_dtype.empty() && !quantized &&
      *hyperplan::gen::ParseElemType(f.kv_dtype) != config.dtype)
    throw std::invalid_argument(
        fmt::format("--kv-dtype {}: the cache is the activation type ({}); pass --dtype {} instead",
                    f.kv_dtype, hyperplan::gen::ElemTypeName(config.dtype), f.kv_dtype));
  const bool fused = o.attention == hyperplan::gen::AttentionForm::kFused && !config.IsMla();
  if (quantized && !fused)
    throw std::invalid_argument(fmt::format(
        "--kv-dtype {}: a quantized cache is GroupQueryAttention's (--attention fused); the "
        "unfused and latent-attention forms keep the cache in the activation type",
        f.kv_dtype));
  if (!quantized && !f.kv_scales.empty())
    throw std::invalid_argument("--kv-scales: applies to --kv-dtype int8 or fp8");
  o.kv_cache = f.kv_dtype == "int8"  ? KvCache::kInt8
               : f.kv_dtype == "fp8" ? KvCache::kFp8
                                     : KvCache::kModelType;
  o.kv_scales = f.kv_scales == "channel" ? hyperplan::gen::KvScales::kPerChannel
                                         : hyperplan::gen::KvScales::kPerTensor;
  if (f.check && o.kv_cache == KvCache::kFp8)
    throw std::invalid_argument(
        "--kv-dtype fp8 with --check: ONNX 1.12's checker has no float8 type (17); the int8 "
        "form has the same graph");
  o.shared_kv_buffer = f.kv_layout == "shared";
  if (o.shared_kv_buffer && (!fused || o.form != hyperplan::gen::Form::kDecode))
    throw std::invalid_argument(
        "--kv-layout shared: the shared max_length buffer is GroupQueryAttention's in the "
        "decode form (--form decode, --attention fused)");
}

hyperplan::gen::WeightFormat ResolveWeightFormat(const Flags& f,
                                                 const hyperplan::gen::HfConfig& hf) {
  using hyperplan::gen::WeightFormat;
  if (f.weights == "int4") return WeightFormat::kInt4;
  if (f.weights == "int8") return WeightFormat::kInt8;
  if (f.weights == "fp8") return WeightFormat::kFp8;
  if (f.weights == "mxfp4") return WeightFormat::kMxfp4;
  if (!f.weights.empty()) return WeightFormat::kPlain;   // bf16, fp16
  if (hf.fp8_block_rows > 0) return WeightFormat::kFp8;  // the checkpoint's own format
  // GPT-OSS's MXFP4 experts, where the form can write them (the gather form).
  if (hf.mxfp4_experts && f.moe_form == "gather") return WeightFormat::kMxfp4;
  return f.ops == "contrib" ? WeightFormat::kInt4 : WeightFormat::kPlain;
}

BuildOptions ResolveOptions(const Flags& f, const ModelConfig& config,
                            const hyperplan::gen::HfConfig& hf) {
  using hyperplan::gen::AttentionForm;
  BuildOptions o;
  o.form = f.form == "decode"  ? hyperplan::gen::Form::kDecode
           : f.form == "train" ? hyperplan::gen::Form::kTrain
                               : hyperplan::gen::Form::kPrefill;
  const bool train = o.form == hyperplan::gen::Form::kTrain;
  o.ops = f.ops == "contrib" ? hyperplan::gen::OpSet::kContrib : hyperplan::gen::OpSet::kStandard;
  if (config.IsMla() && f.attention == "fused")
    throw std::invalid_argument(
        "--attention fused: ONNX Runtime has no fused op for multi-head latent attention (its "
        "absorbed form is built without the flag)");
  const bool fused = f.attention.empty() ? !train : f.attention == "fused";
  o.attention = fused ? AttentionForm::kFused : AttentionForm::kUnfused;
  o.weights = ResolveWeightFormat(f, hf);
  if (hf.fp8_block_rows > 0) {
    o.fp8_block_rows = hf.fp8_block_rows;
    o.fp8_block_cols = hf.fp8_block_cols;
  }
  o.last_logits_only = f.logits.empty() ? !train : f.logits == "last";
  if (train && o.last_logits_only)
    throw std::invalid_argument("--logits last: the training step's loss reads every position");
  ResolveKvCache(f, config, o);
  if (!train && !f.train_attention.empty())
    throw std::invalid_argument("--train-attention: applies to --form train");
  o.train_attention = f.train_attention == "stash" ? hyperplan::gen::TrainAttention::kStash
                                                   : hyperplan::gen::TrainAttention::kRecompute;
  o.seed = f.seed;
  o.moe_form = f.moe_form == "ort"      ? hyperplan::gen::MoeForm::kOrt
               : f.moe_form == "gather" ? hyperplan::gen::MoeForm::kGather
                                        : hyperplan::gen::MoeForm::kDense;
  if (const std::string problem = hyperplan::gen::MoeFormProblem(
          config, o.moe_form, o.weights, o.quant_block_size, o.fp8_block_rows, o.fp8_block_cols);
      !problem.empty())
    throw std::invalid_argument(problem);
  o.fake_quant = f.fake_quant;
  if (f.fake_quant && o.weights != hyperplan::gen::WeightFormat::kPlain)
    throw std::invalid_argument("--fake-quant applies to plain weights (int4 is already 4-bit)");
  o.external_weights =
      f.weight_storage.empty() ? config.real_scale : f.weight_storage == "external";
  o.weights_location = f.weights_file.empty()
                           ? std::filesystem::path(f.output).filename().string() + ".data"
                           : f.weights_file;
  return o;
}

// The dimensions: a preset or a config.json, then the overrides.
ModelConfig ReadModelConfig(const Flags& f, hyperplan::gen::HfConfig* hf) {
  ModelConfig config;
  if (!f.hf_config.empty()) {
    *hf = hyperplan::gen::ReadHfConfig(f.hf_config);
    config = hf->config;
    if (!hf->dtype_given && f.dtype.empty())
      throw hyperplan::Error(hyperplan::ErrorKind::kModel,
                             f.hf_config + ": field 'torch_dtype': missing (or pass --dtype)");
  } else {
    config = *hyperplan::gen::FindPreset(f.preset);
  }
  if (f.layers > 0) {
    config.layers = f.layers;
    config.first_dense_layers = std::min(config.first_dense_layers, f.layers);
  }
  if (f.kv_heads > 0) {
    if (config.IsMla())
      throw std::invalid_argument("--kv-heads: latent attention caches one row per token");
    config.kv_heads = f.kv_heads;
  }
  if (f.experts > 0) {
    if (config.routed_experts == 0) throw std::invalid_argument("--experts needs an MoE preset");
    config.routed_experts = f.experts;
    config.experts_per_token = std::min(config.experts_per_token, f.experts);
  }
  if (!f.dtype.empty()) config.dtype = *hyperplan::gen::ParseElemType(f.dtype);
  ApplyPlainWeightType(f, config);
  if (const std::string error = hyperplan::gen::ValidateConfig(config); !error.empty())
    throw std::invalid_argument(error);
  return config;
}

void PrintHfConfig(const Flags& f, const hyperplan::gen::HfConfig& hf) {
  const ModelConfig& config = hf.config;
  fmt::print(
      "{}: {} layers, hidden {}, heads {}/{} kv of {}, intermediate {}, vocab {}, {}{}{}\n",
      f.hf_config, config.layers, config.hidden, config.heads, config.kv_heads, config.head_dim,
      config.intermediate, config.vocab,
      hf.dtype_given ? hyperplan::gen::ElemTypeName(config.dtype) : "dtype from --dtype",
      config.routed_experts > 0
          ? fmt::format("; {} routed experts (top {}) of {} + {} shared, first {} dense",
                        config.routed_experts, config.experts_per_token, config.moe_intermediate,
                        config.shared_experts, config.first_dense_layers)
          : std::string(),
      hyperplan::gen::DescribeVariations(config));
  for (const std::string& note : hf.notes) fmt::print("note: {}\n", note);
}

int BuildAndWrite(const Flags& f, const ModelConfig& config, const BuildOptions& options,
                  const std::map<std::string, int64_t>& dims) {
  const auto start = std::chrono::steady_clock::now();
  hyperplan::gen::BuildStats stats;
  const onnx::ModelProto model = f.form == "gpt2-optimized"
                                     ? hyperplan::gen::BuildGpt2Optimized(config, options, &stats)
                                 : options.form == hyperplan::gen::Form::kTrain
                                     ? hyperplan::gen::BuildTrainStep(config, options, &stats)
                                     : hyperplan::gen::BuildDecoder(config, options, &stats);
  if (!options.external_weights && stats.weight_bytes > kMaxInlineWeightBytes)
    throw std::invalid_argument(
        fmt::format("{} bytes of weights are too many to inline; use --weight-storage external",
                    stats.weight_bytes));
  const int64_t file_bytes = hyperplan::gen::WriteModelAtomically(model, f.output);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("{}: {} nodes, {} weights ({} bytes{}), file {} bytes, {:.2f} s\n", f.output,
             stats.node_count, stats.weight_count, stats.weight_bytes,
             options.external_weights
                 ? fmt::format(", external in {} up to byte {}, not written",
                               options.weights_location, stats.weights_file_bytes)
                 : std::string(", inline"),
             file_bytes, seconds);
  if (!f.check) return 0;
  const auto report = hyperplan::gen::CheckModel(model, dims);
  for (const auto& line : report.lines) fmt::print("  {}\n", line);
  if (!report.ok) return Fail(kCheckFailedExit, f.output + ": fails --check (see above)");
  return 0;
}

// --form swin: the Swin-class classifier (--weight-storage and --weights-file apply), checked
// with the ONNX checker under --check.
int WriteSwinForm(const Flags& f) {
  const std::string location = f.weight_storage != "external" ? std::string()
                               : f.weights_file.empty()
                                   ? std::filesystem::path(f.output).filename().string() + ".data"
                                   : f.weights_file;
  const onnx::ModelProto model = hyperplan::gen::BuildSwinForm(f.seed, location);
  const int64_t bytes = hyperplan::gen::WriteModelAtomically(model, f.output);
  fmt::print("{}: swin classifier, {} nodes, file {} bytes\n", f.output, model.graph().node_size(),
             bytes);
  if (!f.check) return 0;
  const auto report = hyperplan::gen::CheckModel(model, {}, /*require_concrete=*/false);
  for (const auto& line : report.lines) fmt::print("  {}\n", line);
  if (!report.ok) return Fail(kCheckFailedExit, f.output + ": fails --check (see above)");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "hyperplan-gen: writes Llama-style decoder ONNX models (dense or MoE) for the planner's "
      "tests"};
  app.footer(PresetTable() +
             "Weights are random (fixed-seed PRNG keyed by tensor name); the same flags give a "
             "byte-identical file.");
  Flags f;
  AddModelFlags(app, f);
  AddFormFlags(app, f);
  AddOutputFlags(app, f);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // --help and --version are "errors" with exit code 0 in CLI11; everything else is usage.
    if (error.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(error);
    return Fail(kUsageExit, error.what());
  }

  try {
    // Read before anything is built or written, so a bad --dim writes no file.
    const std::map<std::string, int64_t> dims = CheckDims(
        f.check_dims, f.form == "decode" || f.form == "gpt2-optimized", f.kv_layout == "shared");
    if (!f.loop_form.empty()) {
      const int64_t bytes = hyperplan::gen::WriteModelAtomically(
          hyperplan::gen::BuildLoopStateForm(f.loop_form, f.seed), f.output);
      fmt::print("{}: {} decode step, file {} bytes\n", f.output, f.loop_form, bytes);
      return 0;
    }
    if (f.form == "swin") return WriteSwinForm(f);
    hyperplan::gen::HfConfig hf;
    const ModelConfig config = ReadModelConfig(f, &hf);
    if (!f.hf_config.empty()) PrintHfConfig(f, hf);
    const BuildOptions options = ResolveOptions(f, config, hf);
    return BuildAndWrite(f, config, options, dims);
  } catch (const std::invalid_argument& e) {
    return Fail(kUsageExit, e.what());  // flag values the presets cannot take
  } catch (const hyperplan::Error& e) {
    return Fail(hyperplan::ExitCode(e.kind()), e.what());  // the output cannot be written
  } catch (const std::exception& e) {
    return Fail(kInternalExit, std::string("internal error: ") + e.what());
  }
}
