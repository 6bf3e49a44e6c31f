// Qwen3-MoE (Qwen/Qwen3-235B-A22B) and GPT-OSS (openai/gpt-oss-120b) from their published
// config.json files (tests/data/hf-configs): the fields read, the parameter bytes of the built
// graph against the parameter formula worked by hand beside each assertion (and the published
// totals: 235B / 22B active; 116.8B / 5.1B active), and the layer parts each family adds.
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "build_options.h"
#include "decoder.h"
#include "hf_config.h"
#include "support/onnx_tensor_bytes.h"

namespace hyperplan::gen {
namespace {

const std::string kConfigs = std::string(HYPERPLAN_SOURCE_DIR) + "/tests/data/hf-configs/";

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

struct Bytes {
  int64_t parameters = 0;      // model.* and lm_head.*: the checkpoint's tensors
  int64_t expert_weights = 0;  // routed experts' projection weights (not their biases)
  int64_t kv_per_token = 0;
};

onnx::ModelProto Build(const std::string& file, BuildOptions options = BuildOptions()) {
  const HfConfig read = ReadHfConfig(kConfigs + file);
  options.form = Form::kDecode;
  options.external_weights = true;
  options.weights_location = file + ".data";
  return BuildDecoder(read.config, options, nullptr);
}

Bytes Measure(const onnx::ModelProto& model) {
  Bytes bytes;
  for (const auto& t : model.graph().initializer()) {
    const std::string& name = t.name();
    if (name.rfind("model.", 0) != 0 && name.rfind("lm_head.", 0) != 0) continue;
    if (name.rfind("model.rotary_emb.", 0) == 0) continue;
    bytes.parameters += testing::OnnxTensorBytes(t);
    if (Contains(name, ".mlp.experts.") && !Contains(name, ".bias"))
      bytes.expert_weights += testing::OnnxTensorBytes(t);
  }
  for (const auto& input : model.graph().input()) {
    if (input.name().rfind("past_key_values.", 0) != 0) continue;
    int64_t per_token = testing::OnnxElementBytes(input.type().tensor_type().elem_type());
    for (const auto& dim : input.type().tensor_type().shape().dim())
      if (dim.has_dim_value()) per_token *= dim.dim_value();
    bytes.kv_per_token += per_token;
  }
  return bytes;
}

const onnx::TensorProto* Initializer(const onnx::ModelProto& model, const std::string& name) {
  for (const auto& t : model.graph().initializer())
    if (t.name() == name) return &t;
  return nullptr;
}

const onnx::NodeProto* FindNode(const onnx::ModelProto& model, const std::string& name) {
  for (const auto& node : model.graph().node())
    if (node.name() == name) return &node;
  return nullptr;
}

const onnx::AttributeProto* Attribute(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& attribute : node.attribute())
    if (attribute.name() == name) return &attribute;
  return nullptr;
}

TEST_CASE("Qwen3-235B-A22B's config: per-head q/k norms, 128 experts top 8", "[generator][hf]") {
  const HfConfig read = ReadHfConfig(kConfigs + "qwen3-235b-a22b.json");
  const ModelConfig& c = read.config;
  CHECK(c.layers == 94);
  CHECK(c.hidden == 4096);
  CHECK(c.heads == 64);
  CHECK(c.kv_heads == 4);
  CHECK(c.head_dim == 128);  // given: 64 heads of 128 are 8192, twice the hidden size
  CHECK(c.qk_norm);
  CHECK_FALSE(c.qkv_bias);
  CHECK(c.routed_experts == 128);
  CHECK(c.experts_per_token == 8);
  CHECK(c.moe_intermediate == 1536);
  CHECK(c.shared_experts == 0);
  CHECK(c.normalize_top_k);
  CHECK(c.router == Router::kSoftmaxTopK);
  CHECK(c.sliding_window == 0);  // use_sliding_window false
  for (int64_t layer = 0; layer < c.layers; ++layer) CHECK(c.IsMoeLayer(layer));
  CHECK(read.notes.empty());
}

TEST_CASE("Qwen3-MoE: mlp_only_layers and decoder_sparse_step keep dense MLPs", "[generator][hf]") {
  const HfConfig tiny = ReadHfConfig(kConfigs + "tiny-qwen3-moe.json");
  // mlp_only_layers [1]: layers 0, 2, 3 have experts, layer 1 a dense MLP.
  CHECK(tiny.config.IsMoeLayer(0));
  CHECK_FALSE(tiny.config.IsMoeLayer(1));
  CHECK(tiny.config.IsMoeLayer(2));
  ModelConfig every_other = tiny.config;
  every_other.dense_mlp_layers.clear();
  every_other.moe_layer_step = 2;  // (layer + 1) % 2 == 0: layers 1 and 3
  CHECK_FALSE(every_other.IsMoeLayer(0));
  CHECK(every_other.IsMoeLayer(1));
  CHECK_FALSE(every_other.IsMoeLayer(2));
  CHECK(every_other.IsMoeLayer(3));
  // norm_topk_prob absent: Qwen3MoeConfig's default, false.
  const HfConfig plain = ParseHfConfig(
      R"({"model_type": "qwen3_moe", "hidden_size": 64, "intermediate_size": 192,
          "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 512,
          "max_position_embeddings": 512, "num_experts": 4, "num_experts_per_tok": 2,
          "moe_intermediate_size": 32})",
      "q.json");
  CHECK_FALSE(plain.config.normalize_top_k);
}

TEST_CASE("Qwen3-235B-A22B: 235.1e9 parameters, 22.2e9 active", "[generator][bytes]") {
  const onnx::ModelProto model = Build("qwen3-235b-a22b.json");
  const Bytes m = Measure(model);
  // Per layer: q 4096*8192 = 33,554,432, k and v 4096*512 = 2,097,152 each, o 8192*4096 =
  // 33,554,432, q_norm and k_norm 128 each: 71,303,424. Experts 128 * 3*4096*1536 =
  // 2,415,919,104; router 4096*128 = 524,288; norms 2*4096 = 8,192: 2,487,755,008.
  // 94 layers: 233,848,970,752. Embedding and LM head 2*151936*4096 = 1,244,659,712; final
  // norm 4,096. Total 235,093,634,560 (235e9); bf16: 470,187,269,120 bytes.
  CHECK(m.parameters == 470'187'269'120);
  // Experts 94 * 2,415,919,104 = 227,096,395,776 weights, 454,192,791,552 bytes.
  CHECK(m.expert_weights == 454'192'791'552);
  // Active: all but 120 of every 128 experts: 235,093,634,560 - 227,096,395,776 * 120/128
  // (212,902,871,040) = 22,190,763,520 (22e9), in bytes twice that.
  CHECK(m.parameters - m.expert_weights / 128 * 120 == 2 * 22'190'763'520);
  // 94 layers * (key + value) * 4 KV heads * 128 * 2 bytes.
  CHECK(m.kv_per_token == 192'512);
  const onnx::TensorProto* q_norm = Initializer(model, "model.layers.0.self_attn.q_norm.weight");
  REQUIRE(q_norm != nullptr);
  CHECK(q_norm->dims(0) == 128);  // one head wide
}

TEST_CASE("GPT-OSS-120B's config: sinks, alternating windows, clamped SwiGLU, MXFP4 experts",
          "[generator][hf]") {
  const HfConfig read = ReadHfConfig(kConfigs + "gpt-oss-120b.json");
  const ModelConfig& c = read.config;
  CHECK(c.layers == 36);
  CHECK(c.hidden == 2880);
  CHECK(c.heads == 64);
  CHECK(c.kv_heads == 8);
  CHECK(c.head_dim == 64);
  CHECK(c.qkv_bias);
  CHECK(c.o_bias);
  CHECK(c.attention_sinks);
  CHECK(c.sliding_window == 128);
  CHECK(c.IsSlidingLayer(0));  // layer_types: sliding, full, sliding, ...
  CHECK_FALSE(c.IsSlidingLayer(1));
  CHECK(c.IsSlidingLayer(34));
  CHECK_FALSE(c.IsSlidingLayer(35));
  CHECK(c.routed_experts == 128);
  CHECK(c.experts_per_token == 4);
  CHECK(c.moe_intermediate == 2880);
  CHECK(c.router_bias);
  CHECK(c.mlp_bias);
  CHECK(c.swiglu_limit == 7.0f);
  CHECK(c.swiglu_alpha == 1.702f);
  CHECK(c.swiglu_beta == 1.0f);
  CHECK(c.rope_scaling.kind == RopeScaling::Kind::kYarn);
  CHECK(c.rope_scaling.factor == 32.0);
  CHECK(c.dtype == ElemType::kBFloat16);  // no torch_dtype: the checkpoint's bf16
  CHECK(read.dtype_given);                // so hyperplan-gen needs no --dtype
  CHECK(read.mxfp4_experts);
}

TEST_CASE("GPT-OSS-120B: 116.8e9 parameters, 5.13e9 active", "[generator][bytes]") {
  const onnx::ModelProto model = Build("gpt-oss-120b.json");
  const Bytes m = Measure(model);
  // Per layer: q 2880*4096 = 11,796,480 and o the same, k and v 2880*512 = 1,474,560 each,
  // biases 4096 + 512 + 512 + 2880 = 8,000, sinks 64: 26,550,144. Experts 128 * (3*2880*2880
  // = 24,883,200 + biases 3*2880 = 8,640) = 3,186,155,520; router 2880*128 + 128 = 368,768;
  // norms 5,760: 3,213,080,192. 36 layers: 115,670,886,912. Embedding and LM head
  // 2*201088*2880 = 1,158,266,880; final norm 2,880. Total 116,829,156,672 (116.8e9, the
  // model card's 116.83B); bf16 (the weights as plain): 233,658,313,344 bytes.
  CHECK(m.parameters == 233'658'313'344);
  // Expert weights 36 * 128 * 24,883,200 = 114,661,785,600.
  CHECK(m.expert_weights == 2 * 114'661'785'600);
  // Active as the model card counts (the LM head, not the embedding): all but 124 of every
  // 128 experts' weights and biases, less the embedding: 116,829,156,672 - 124/128 *
  // 36 * 3,186,155,520 (111,117,173,760) - 579,133,440 = 5,132,849,472 (5.13e9).
  const int64_t expert_biases = 36 * 128 * 8'640;
  CHECK((m.parameters / 2 - (m.expert_weights / 2 + expert_biases) / 128 * 124 - 579'133'440) ==
        5'132'849'472);
  // 36 layers * 2 * 8 KV heads * 64 * 2 bytes: every layer's cache the graph's full length.
  CHECK(m.kv_per_token == 73'728);
  const onnx::TensorProto* sinks = Initializer(model, "model.layers.0.self_attn.sinks");
  REQUIRE(sinks != nullptr);
  CHECK(sinks->dims(0) == 64);
  CHECK(Initializer(model, "model.layers.0.mlp.gate.bias") != nullptr);
}

TEST_CASE("GPT-OSS fused: GroupQueryAttention windows alternate and read the sinks",
          "[generator][hf]") {
  BuildOptions options;
  options.attention = AttentionForm::kFused;
  const onnx::ModelProto model = Build("gpt-oss-120b.json", options);
  for (int64_t layer : {0, 1}) {
    const onnx::NodeProto* gqa =
        FindNode(model, "/model/layers." + std::to_string(layer) + "/attn/GroupQueryAttention");
    REQUIRE(gqa != nullptr);
    const onnx::AttributeProto* window = Attribute(*gqa, "local_window_size");
    REQUIRE(window != nullptr);
    CHECK(window->i() == (layer == 0 ? 128 : -1));  // layer 0 slides, layer 1 sees everything
    REQUIRE(gqa->input_size() == 12);               // head_sink is input 11
    CHECK(gqa->input(11) == "model.layers." + std::to_string(layer) + ".self_attn.sinks");
  }
}

TEST_CASE("GPT-OSS ort form: MoE with expert biases and the clamped SwiGLU", "[generator][moe]") {
  BuildOptions options;
  options.moe_form = MoeForm::kOrt;
  const onnx::ModelProto model = Build("tiny-gpt-oss.json", options);
  const onnx::NodeProto* moe = FindNode(model, "/model/layers.0/mlp/MoE");
  REQUIRE(moe != nullptr);
  // input, router, fc1, fc1 bias [8, 2*64], fc2, fc2 bias [8, 64].
  REQUIRE(moe->input_size() == 6);
  CHECK(moe->input(3) == "model.layers.0.mlp.experts.fc1.bias");
  CHECK(moe->input(5) == "model.layers.0.mlp.experts.down_proj.bias");
  const onnx::TensorProto* fc1_bias = Initializer(model, "model.layers.0.mlp.experts.fc1.bias");
  REQUIRE(fc1_bias != nullptr);
  CHECK(fc1_bias->dims(1) == 128);
  REQUIRE(Attribute(*moe, "swiglu_limit") != nullptr);
  CHECK(Attribute(*moe, "swiglu_limit")->f() == 7.0f);
  CHECK(Attribute(*moe, "activation_alpha")->f() == 1.702f);
  CHECK(Attribute(*moe, "activation_beta")->f() == 1.0f);
}

}  // namespace
}  // namespace hyperplan::gen
