// ParseHfConfig / ReadHfConfig: Hugging Face config.json fields onto ModelConfig, and one
// message naming the file and the field for each kind of bad input.
#include "hf_config.h"

#include <catch2/catch.hpp>
#include <string>

#include "hyperplan/error.h"

namespace hyperplan::gen {
namespace {

using Catch::Matchers::StartsWith;

const std::string kConfigs = std::string(HYPERPLAN_SOURCE_DIR) + "/tests/data/hf-configs/";

// The message parsing `json` as "x.json" must throw.
std::string Problem(const std::string& json) {
  try {
    ParseHfConfig(json, "x.json");
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  FAIL("accepted");
  return "";
}

// A minimal llama config with `extra` fields spliced in (later keys of a JSON object do not
// override earlier ones in nlohmann, so `extra` must not repeat these).
std::string Llama(const std::string& extra) {
  return R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 192,
             "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 512,
             "max_position_embeddings": 512, "torch_dtype": "float32")" +
         (extra.empty() ? "" : ", " + extra) + "}";
}

TEST_CASE("Llama 3.1 8B: dims, rope scaling, dtype", "[generator][hf]") {
  const HfConfig read = ReadHfConfig(kConfigs + "llama-3.1-8b.json");
  const ModelConfig& c = read.config;
  CHECK(c.preset == "llama-3.1-8b");
  CHECK(c.source == "llama-3.1-8b.json");
  CHECK(c.layers == 32);
  CHECK(c.hidden == 4096);
  CHECK(c.heads == 32);
  CHECK(c.kv_heads == 8);
  CHECK(c.head_dim == 128);  // no head_dim field: 4096 / 32
  CHECK(c.intermediate == 14336);
  CHECK(c.vocab == 128256);
  CHECK(c.max_positions == 131072);
  CHECK(c.rope_theta == 500000.0);
  CHECK(c.rms_epsilon == 1e-5f);
  CHECK(c.rope_scaling.kind == RopeScaling::Kind::kLlama3);
  CHECK(c.rope_scaling.factor == 8.0);
  CHECK(c.rope_scaling.original_max_positions == 8192);
  CHECK(c.dtype == ElemType::kBFloat16);
  CHECK(read.dtype_given);
  CHECK_FALSE(c.tie_embeddings);
  CHECK_FALSE(c.qkv_bias);
  CHECK(c.routed_experts == 0);
  CHECK(c.real_scale);  // weights external by default
  CHECK(read.notes.empty());
}

TEST_CASE("Family-specific fields", "[generator][hf]") {
  const ModelConfig qwen = ReadHfConfig(kConfigs + "qwen2-7b.json").config;
  CHECK(qwen.qkv_bias);             // Qwen2 always has q/k/v biases
  CHECK_FALSE(qwen.o_bias);         // but none on o_proj
  CHECK(qwen.sliding_window == 0);  // use_sliding_window: false
  CHECK(qwen.kv_heads == 4);

  const ModelConfig tied = ReadHfConfig(kConfigs + "llama-3.2-1b.json").config;
  CHECK(tied.tie_embeddings);
  CHECK(tied.head_dim == 64);  // the explicit head_dim field

  const ModelConfig mixtral = ReadHfConfig(kConfigs + "mixtral-8x7b.json").config;
  CHECK(mixtral.routed_experts == 8);
  CHECK(mixtral.experts_per_token == 2);
  CHECK(mixtral.moe_intermediate == 14336);  // experts are intermediate_size wide
  CHECK(mixtral.first_dense_layers == 0);
  CHECK(mixtral.shared_experts == 0);
  CHECK(mixtral.router == Router::kSoftmaxTopK);
  CHECK(mixtral.sliding_window == 0);  // "sliding_window": null

  const ModelConfig sliding = ReadHfConfig(kConfigs + "tiny-qwen2-sliding.json").config;
  CHECK(sliding.sliding_window == 4);
  CHECK(sliding.sliding_window_first_layer == 1);  // max_window_layers
  CHECK_FALSE(sliding.IsSlidingLayer(0));
  CHECK(sliding.IsSlidingLayer(2));

  // A mistral config without the key gets transformers' default window; null means none.
  const std::string mistral = R"({"model_type": "mistral", "hidden_size": 64,
      "intermediate_size": 8, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 8,
      "max_position_embeddings": 8, "torch_dtype": "float32")";
  CHECK(ParseHfConfig(mistral + "}", "x.json").config.sliding_window == 4096);
  CHECK(ParseHfConfig(mistral + R"(, "sliding_window": null})", "x.json").config.sliding_window ==
        0);

  const ModelConfig biased =
      ParseHfConfig(Llama(R"("attention_bias": true, "mlp_bias": true)"), "x.json").config;
  CHECK(biased.qkv_bias);
  CHECK(biased.o_bias);  // Llama's attention_bias covers o_proj too
  CHECK(biased.mlp_bias);
}

TEST_CASE("DeepSeek-V3: latent attention and the sigmoid router", "[generator][hf]") {
  const HfConfig read = ReadHfConfig(kConfigs + "deepseek-v3.json");
  const ModelConfig& c = read.config;
  CHECK(c.IsMla());
  CHECK(c.mla.q_lora_rank == 1536);
  CHECK(c.mla.kv_lora_rank == 512);
  CHECK(c.mla.qk_nope_head_dim == 128);
  CHECK(c.mla.qk_rope_head_dim == 64);
  CHECK(c.mla.v_head_dim == 128);
  CHECK(c.RopeDim() == 64);
  CHECK(c.KvCacheWidth() == 576);  // 512 latent + 64 rotary key per token and layer
  CHECK(c.heads == 128);
  CHECK(c.routed_experts == 256);
  CHECK(c.experts_per_token == 8);
  CHECK(c.moe_intermediate == 2048);
  CHECK(c.shared_experts == 1);
  CHECK(c.first_dense_layers == 3);
  CHECK(c.intermediate == 18432);
  CHECK(c.router == Router::kSigmoidGroupLimited);
  CHECK(c.expert_groups == 8);
  CHECK(c.groups_per_token == 4);
  CHECK(c.routed_scaling_factor == 2.5);
  CHECK(c.rope_scaling.kind == RopeScaling::Kind::kYarn);  // "type": "yarn"
  CHECK(c.rope_scaling.factor == 40.0);
  CHECK(c.rope_scaling.mscale_all_dim == 1.0);
  REQUIRE(read.notes.size() == 2);  // multi-token prediction, fp8 quantization
  CHECK_THAT(read.notes[0], StartsWith("num_nextn_predict_layers 1: "));
  CHECK_THAT(read.notes[1],
             StartsWith("quantization_config (fp8 e4m3, blocks 128x128): weights default to fp8"));
  // weight_block_size [128, 128]: the checkpoint's float32 scale blocks.
  CHECK(read.fp8_block_rows == 128);
  CHECK(read.fp8_block_cols == 128);
}

TEST_CASE("A quantization_config other than fp8 blocks is said and left out", "[generator][hf]") {
  const HfConfig read = ParseHfConfig(
      R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
          "num_hidden_layers": 1, "num_attention_heads": 4, "vocab_size": 64,
          "max_position_embeddings": 64, "torch_dtype": "float16",
          "quantization_config": {"quant_method": "awq", "bits": 4}})",
      "awq.json");
  CHECK(read.fp8_block_rows == 0);
  REQUIRE(read.notes.size() == 1);
  CHECK_THAT(read.notes[0], StartsWith("quantization_config (awq) is not modeled"));
}

TEST_CASE("Bad configs name the file and the field", "[generator][hf]") {
  CHECK(Problem(R"({"hidden_size": 64})") == "x.json: field 'model_type': missing");
  CHECK(Problem(R"({"model_type": "gemma2"})") ==
        "x.json: field 'model_type': 'gemma2' is not supported (llama, mistral, qwen2, mixtral, "
        "deepseek_v3, qwen3_moe, gpt_oss)");
  CHECK(Problem(R"({"model_type": "llama"})") == "x.json: field 'num_hidden_layers': missing");
  CHECK(Problem(R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": "4k"})") ==
        "x.json: field 'hidden_size': expected an integer, found string \"4k\"");
  CHECK(Problem(R"({"model_type": "llama", "num_hidden_layers": 2.5})") ==
        "x.json: field 'num_hidden_layers': expected an integer, found number 2.5");
  CHECK(Problem(R"({"model_type": "llama", "num_hidden_layers": 0})") ==
        "x.json: field 'num_hidden_layers': must be at least 1, found 0");
  CHECK(Problem(Llama(R"("hidden_act": "gelu")")) ==
        "x.json: field 'hidden_act': 'gelu' is not supported (the layers are SwiGLU: silu)");
  CHECK(Problem(Llama(R"("rope_scaling": {"rope_type": "longrope"})")) ==
        "x.json: field 'rope_scaling.rope_type': 'longrope' is not supported (default, linear, "
        "dynamic, llama3, yarn)");
  CHECK(Problem(Llama(R"("rope_scaling": {"rope_type": "linear", "factor": "2"})")) ==
        "x.json: field 'rope_scaling.factor': expected a number, found string \"2\"");
  CHECK(Problem(Llama(R"("rope_scaling": {"rope_type": "llama3", "factor": 8})")) ==
        "x.json: field 'rope_scaling.original_max_position_embeddings': missing");
  CHECK(Problem(Llama(R"("tie_word_embeddings": "yes")")) ==
        "x.json: field 'tie_word_embeddings': expected true or false, found string \"yes\"");
  CHECK(Problem(Llama(R"("num_key_value_heads": 3)")) ==
        "x.json: heads (4) must be a multiple of kv_heads (3)");
  CHECK(Problem(R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 60,
                    "num_attention_heads": 8})") ==
        "x.json: field 'head_dim': missing, and hidden_size 60 is not a multiple of "
        "num_attention_heads 8");
  CHECK(Problem(R"({"model_type": "llama", "torch_dtype": "int8", "num_hidden_layers": 2,
                    "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 8,
                    "vocab_size": 8, "max_position_embeddings": 8})") ==
        "x.json: field 'torch_dtype': 'int8' is not supported (bfloat16, float16, float32)");
  // `{"model_type": ` is 15 characters; nlohmann reports the end of input at column 16.
  CHECK_THAT(Problem("{\"model_type\": "),
             StartsWith("x.json: not valid JSON: [json.exception.parse_error.101] parse error at "
                        "line 1, column 16"));
  CHECK(Problem("[1, 2]") == "x.json: expected a config.json object, found array");
}

TEST_CASE("DeepSeek fields the graph cannot express are refused", "[generator][hf]") {
  std::string config = R"({"model_type": "deepseek_v3", "hidden_size": 64, "intermediate_size": 8,
      "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 8,
      "max_position_embeddings": 8, "kv_lora_rank": 8, "qk_nope_head_dim": 4,
      "qk_rope_head_dim": 2, "v_head_dim": 4, "n_routed_experts": 4, "num_experts_per_tok": 2,
      "moe_intermediate_size": 4, "torch_dtype": "float32")";
  CHECK(Problem(config + R"(, "moe_layer_freq": 2})") ==
        "x.json: field 'moe_layer_freq': only 1 (every layer after the dense ones) is supported");
  CHECK(Problem(config + R"(, "scoring_func": "softmax"})") ==
        "x.json: field 'scoring_func': 'softmax' is not supported (sigmoid)");
  CHECK(Problem(config + R"(, "attention_bias": true})") ==
        "x.json: field 'attention_bias': true is not supported for multi-head latent attention");
  CHECK(Problem(config + R"(, "n_group": 3})") ==
        "x.json: expert groups (3) must divide the routed experts (4)");
  // q_lora_rank null: queries straight from the hidden state.
  CHECK(ParseHfConfig(config + R"(, "q_lora_rank": null})", "x.json").config.mla.q_lora_rank == 0);
}

TEST_CASE("ReadHfConfig names the file it cannot read", "[generator][hf]") {
  try {
    ReadHfConfig("/nonexistent/config.json");
    FAIL("accepted");
  } catch (const hyperplan::Error& error) {
    CHECK(error.kind() == hyperplan::ErrorKind::kInputFile);  // exit 3
    CHECK(std::string(error.what()) ==
          "/nonexistent/config.json: cannot read: No such file or directory");
  }
  // A file named config.json takes its model's name from model_type.
  CHECK(ParseHfConfig(Llama(""), "some/dir/config.json").config.preset == "llama");
}

}  // namespace
}  // namespace hyperplan::gen
