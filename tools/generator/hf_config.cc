#include "hf_config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "hf_fields.h"
#include "hf_moe_families.h"
#include "hyperplan/error.h"

namespace hyperplan::gen {

namespace {

ElemType DtypeField(const HfFields& f, const char* key) {
  const std::string name = f.String(key);
  if (name == "bfloat16") return ElemType::kBFloat16;
  if (name == "float16") return ElemType::kFloat16;
  if (name == "float32") return ElemType::kFloat32;
  throw f.Problem(key, fmt::format("'{}' is not supported (bfloat16, float16, float32)", name));
}

RopeScaling ReadRopeScaling(const HfFields& rope, int64_t max_positions) {
  RopeScaling s;
  // transformers reads "rope_type", and "type" in older configs (DeepSeek-V3's).
  const char* type_key = rope.OptionalString("rope_type") ? "rope_type" : "type";
  const std::string type = rope.OptionalString(type_key).value_or("default");
  if (type == "default") return s;
  const std::vector<std::string> known = {"linear", "dynamic", "llama3", "yarn"};
  if (std::find(known.begin(), known.end(), type) == known.end()) {
    throw rope.Problem(type_key, fmt::format("'{}' is not supported (default, linear, dynamic, "
                                             "llama3, yarn)",
                                             type));
  }
  s.factor = rope.Number("factor");
  if (s.factor <= 0) throw rope.Problem("factor", "must be positive");
  if (type == "linear") {
    s.kind = RopeScaling::Kind::kLinear;
  } else if (type == "dynamic") {
    s.kind = RopeScaling::Kind::kDynamic;
  } else if (type == "llama3") {
    s.kind = RopeScaling::Kind::kLlama3;
    s.original_max_positions = rope.Int("original_max_position_embeddings");
    s.low_freq_factor = rope.Number("low_freq_factor");
    s.high_freq_factor = rope.Number("high_freq_factor");
    if (s.high_freq_factor <= s.low_freq_factor)
      throw rope.Problem("high_freq_factor", "must be above low_freq_factor");
  } else if (type == "yarn") {
    s.kind = RopeScaling::Kind::kYarn;
    s.original_max_positions =
        rope.OptionalInt("original_max_position_embeddings").value_or(max_positions);
    s.beta_fast = rope.OptionalNumber("beta_fast").value_or(32.0);
    s.beta_slow = rope.OptionalNumber("beta_slow").value_or(1.0);
    s.mscale = rope.OptionalNumber("mscale").value_or(0.0);
    s.mscale_all_dim = rope.OptionalNumber("mscale_all_dim").value_or(0.0);
    s.attention_factor = rope.OptionalNumber("attention_factor").value_or(0.0);
  }
  return s;
}

// Layer count and widths; head_dim defaults to hidden / heads as in transformers.
void ReadDims(const HfFields& f, ModelConfig& c) {
  c.layers = f.Int("num_hidden_layers");
  c.hidden = f.Int("hidden_size");
  c.heads = f.Int("num_attention_heads");
  c.kv_heads = f.OptionalInt("num_key_value_heads").value_or(c.heads);
  if (c.kv_heads < 1) throw f.Problem("num_key_value_heads", "must be at least 1");
  if (const auto head_dim = f.OptionalInt("head_dim")) {
    c.head_dim = *head_dim;
  } else {
    if (c.hidden % c.heads != 0)
      throw f.Problem("head_dim", fmt::format("missing, and hidden_size {} is not a multiple of "
                                              "num_attention_heads {}",
                                              c.hidden, c.heads));
    c.head_dim = c.hidden / c.heads;
  }
  c.intermediate = f.Int("intermediate_size");
  c.vocab = f.Int("vocab_size");
  c.max_positions = f.Int("max_position_embeddings");
}

// The layer kinds the generator writes: SwiGLU, every head dim rotated.
void CheckLayerKind(const HfFields& f) {
  if (const auto act = f.OptionalString("hidden_act"); act && *act != "silu")
    throw f.Problem("hidden_act", fmt::format("'{}' is not supported (the layers are SwiGLU: "
                                              "silu)",
                                              *act));
  if (const auto partial = f.OptionalNumber("partial_rotary_factor"); partial && *partial != 1.0)
    throw f.Problem("partial_rotary_factor", "only 1 (every head dim rotated) is supported");
}

void ReadRope(const HfFields& f, ModelConfig& c, HfConfig& out) {
  c.rope_theta = f.OptionalNumber("rope_theta").value_or(10000.0);
  const auto rope = f.Object("rope_scaling");
  if (!rope) return;
  c.rope_scaling = ReadRopeScaling(*rope, c.max_positions);
  if (c.rope_scaling.kind == RopeScaling::Kind::kDynamic)
    out.notes.push_back(
        "rope_scaling dynamic: the rotary tables hold the unscaled frequencies (NTK scaling "
        "depends on each run's length)");
}

// torch_dtype, or dtype in configs written by transformers 4.56 and later.
void ReadDtype(const HfFields& f, ModelConfig& c, HfConfig& out) {
  const char* key = f.OptionalString("torch_dtype") ? "torch_dtype" : "dtype";
  if (!f.OptionalString(key)) return;
  c.dtype = DtypeField(f, key);
  out.dtype_given = true;
}

// The fields every supported family shares.
void ReadCommon(const HfFields& f, ModelConfig& c, HfConfig& out) {
  ReadDims(f, c);
  CheckLayerKind(f);
  ReadRope(f, c, out);
  c.rms_epsilon = static_cast<float>(f.OptionalNumber("rms_norm_eps").value_or(1e-6));
  c.tie_embeddings = f.Bool("tie_word_embeddings", false);
  ReadDtype(f, c, out);
}

void ReadLlama(const HfFields& f, ModelConfig& c) {
  c.qkv_bias = c.o_bias = f.Bool("attention_bias", false);
  c.mlp_bias = f.Bool("mlp_bias", false);
}

// `absent_window`: transformers' default when the key is not written at all (null: none).
void ReadSlidingWindow(const HfFields& f, ModelConfig& c, int64_t first_layer,
                       int64_t absent_window = 0) {
  if (!f.Has("sliding_window") && absent_window > 0) {
    c.sliding_window = absent_window;
    c.sliding_window_first_layer = first_layer;
    return;
  }
  if (const auto window = f.OptionalInt("sliding_window")) {
    if (*window < 1) throw f.Problem("sliding_window", "must be at least 1 (or null for none)");
    c.sliding_window = *window;
    c.sliding_window_first_layer = first_layer;
  }
}

void ReadQwen2(const HfFields& f, ModelConfig& c) {
  c.qkv_bias = true;  // Qwen2Attention's q/k/v projections always have biases
  if (f.Bool("use_sliding_window", false)) {
    // Qwen2Config's defaults: max_window_layers 28, sliding_window 4096.
    ReadSlidingWindow(f, c, f.OptionalInt("max_window_layers").value_or(28), 4096);
  }
}

void ReadMixtral(const HfFields& f, ModelConfig& c) {
  ReadSlidingWindow(f, c, 0);
  c.routed_experts = f.Int("num_local_experts");
  c.experts_per_token = f.Int("num_experts_per_tok");
  c.moe_intermediate = c.intermediate;
  c.first_dense_layers = 0;
}

void ReadLatentAttention(const HfFields& f, ModelConfig& c) {
  if (f.Bool("attention_bias", false))
    throw f.Problem("attention_bias", "true is not supported for multi-head latent attention");
  c.mla.q_lora_rank = f.OptionalInt("q_lora_rank").value_or(0);
  c.mla.kv_lora_rank = f.Int("kv_lora_rank");
  c.mla.qk_nope_head_dim = f.Int("qk_nope_head_dim");
  c.mla.qk_rope_head_dim = f.Int("qk_rope_head_dim");
  c.mla.v_head_dim = f.Int("v_head_dim");
  c.kv_heads = 1;  // one latent row per token, shared by every head
  c.head_dim = c.mla.qk_nope_head_dim + c.mla.qk_rope_head_dim;
}

void ReadDeepSeekExperts(const HfFields& f, ModelConfig& c) {
  c.routed_experts = f.Int("n_routed_experts");
  c.experts_per_token = f.Int("num_experts_per_tok");
  c.moe_intermediate = f.Int("moe_intermediate_size");
  c.shared_experts = f.OptionalInt("n_shared_experts").value_or(0);
  c.first_dense_layers = f.OptionalInt("first_k_dense_replace").value_or(0);
  if (const auto freq = f.OptionalInt("moe_layer_freq"); freq && *freq != 1)
    throw f.Problem("moe_layer_freq", "only 1 (every layer after the dense ones) is supported");
  if (const auto scoring = f.OptionalString("scoring_func"); scoring && *scoring != "sigmoid")
    throw f.Problem("scoring_func", fmt::format("'{}' is not supported (sigmoid)", *scoring));
  if (const auto method = f.OptionalString("topk_method"); method && *method != "noaux_tc")
    throw f.Problem("topk_method", fmt::format("'{}' is not supported (noaux_tc)", *method));
  c.router = Router::kSigmoidGroupLimited;
  c.expert_groups = f.OptionalInt("n_group").value_or(1);
  c.groups_per_token = f.OptionalInt("topk_group").value_or(1);
  c.routed_scaling_factor = f.OptionalNumber("routed_scaling_factor").value_or(1.0);
  c.normalize_top_k = f.Bool("norm_topk_prob", true);
}

// What the checkpoint holds that the graph does not: accepted, and said.
void NoteDeepSeekExtras(const HfFields& f, HfConfig& out) {
  if (const auto mtp = f.OptionalInt("num_nextn_predict_layers"); mtp && *mtp > 0)
    out.notes.push_back(fmt::format(
        "num_nextn_predict_layers {}: the multi-token-prediction layer is not built (inference "
        "does not run it; transformers does not load it either)",
        *mtp));
}

// fp8 with 2-D blocks (DeepSeek-V3) is the weight format the checkpoint stores; any other
// quantization is said and left out.
void ReadQuantization(const HfFields& f, const ModelConfig& c, HfConfig& out) {
  const auto quantization = f.Object("quantization_config");
  if (!quantization) return;
  const std::string method = quantization->OptionalString("quant_method").value_or("?");
  const auto block = quantization->OptionalPositiveInts("weight_block_size");
  if (method == "fp8" && block && block->size() == 2) {
    out.fp8_block_rows = (*block)[0];
    out.fp8_block_cols = (*block)[1];
    out.notes.push_back(fmt::format(
        "quantization_config (fp8 {}, blocks {}x{}): weights default to fp8 (1 byte each plus "
        "a float32 scale per block; LM head, embedding, norms and router stay {})",
        quantization->OptionalString("fmt").value_or(""), out.fp8_block_rows, out.fp8_block_cols,
        ElemTypeName(c.dtype)));
    return;
  }
  if (method == "mxfp4") {
    out.mxfp4_experts = true;
    out.notes.push_back(fmt::format(
        "quantization_config (mxfp4): routed experts are MXFP4 (4.25 bits a weight) in the "
        "gather form (--moe-form gather, its default weights); attention, router, embedding and "
        "LM head stay {}",
        ElemTypeName(c.dtype)));
    return;
  }
  const std::string format = quantization->OptionalString("fmt").value_or("");
  out.notes.push_back(
      fmt::format("quantization_config ({}{}) is not modeled: weights are {} as torch_dtype says",
                  method, format.empty() ? "" : " " + format, ElemTypeName(c.dtype)));
}

void ReadDeepSeekV3(const HfFields& f, ModelConfig& c, HfConfig& out) {
  ReadLatentAttention(f, c);
  ReadDeepSeekExperts(f, c);
  NoteDeepSeekExtras(f, out);
}

// "llama-3.1-8b" for llama-3.1-8b.json; the model_type for a file named config.json.
std::string ModelName(const std::string& path, const std::string& model_type) {
  const std::string stem = std::filesystem::path(path).stem().string();
  return stem.empty() || stem == "config" ? model_type : stem;
}

nlohmann::json ParseObject(const std::string& json_text, const std::string& path) {
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::parse_error& error) {
    throw std::invalid_argument(fmt::format("{}: not valid JSON: {}", path, error.what()));
  }
  if (!document.is_object())
    throw std::invalid_argument(
        fmt::format("{}: expected a config.json object, found {}", path, document.type_name()));
  return document;
}

std::string SupportedModelType(const HfFields& f) {
  const std::string model_type = f.String("model_type");
  const std::vector<std::string> known = HfModelTypes();
  if (std::find(known.begin(), known.end(), model_type) == known.end())
    throw f.Problem("model_type",
                    fmt::format("'{}' is not supported ({})", model_type, fmt::join(known, ", ")));
  return model_type;
}

}  // namespace

std::vector<std::string> HfModelTypes() {
  return {"llama", "mistral", "qwen2", "mixtral", "deepseek_v3", "qwen3_moe", "gpt_oss"};
}

HfConfig ParseHfConfig(const std::string& json_text, const std::string& path) {
  const nlohmann::json document = ParseObject(json_text, path);
  const HfFields f(document, path);
  const std::string model_type = SupportedModelType(f);
  HfConfig out;
  ModelConfig& c = out.config;
  c.preset = ModelName(path, model_type);
  c.source = std::filesystem::path(path).filename().string();
  c.real_scale = true;
  ReadCommon(f, c, out);
  if (model_type == "llama") ReadLlama(f, c);
  // MistralConfig's default window is 4096; published configs write null for none.
  if (model_type == "mistral") ReadSlidingWindow(f, c, 0, 4096);
  if (model_type == "qwen2") ReadQwen2(f, c);
  if (model_type == "mixtral") ReadMixtral(f, c);
  if (model_type == "deepseek_v3") ReadDeepSeekV3(f, c, out);
  if (model_type == "qwen3_moe") ReadQwen3Moe(f, c);
  if (model_type == "gpt_oss") ReadGptOss(f, c, out);
  ReadQuantization(f, c, out);
  if (const std::string error = ValidateConfig(c); !error.empty())
    throw std::invalid_argument(fmt::format("{}: {}", path, error));
  return out;
}

HfConfig ReadHfConfig(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    throw Error(ErrorKind::kInputFile, fmt::format("{}: cannot read: Is a directory", path));
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(ErrorKind::kInputFile,
                fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  try {
    return ParseHfConfig(text.str(), path);
  } catch (const std::invalid_argument& problem) {
    // The config describes the model: a bad one is a malformed model (exit 4), not bad flags.
    throw Error(ErrorKind::kModel, problem.what());
  }
}

}  // namespace hyperplan::gen
