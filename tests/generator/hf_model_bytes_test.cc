// Models built from the shipped Hugging Face configs (tests/data/hf-configs, written from the
// published config.json files) have the published models' weight and KV-cache bytes. Each
// expected count is the parameter formula worked out by hand from the config, beside the
// assertion; the measured side sums the built ONNX graph's initializers (dims x element size),
// not the generator's own tally.
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <string>

#include "build_options.h"
#include "decoder.h"
#include "hf_config.h"
#include "support/onnx_tensor_bytes.h"

namespace hyperplan::gen {
namespace {

const std::string kConfigs = std::string(HYPERPLAN_SOURCE_DIR) + "/tests/data/hf-configs/";

bool StartsWith(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

struct ModelBytes {
  int64_t parameter_bytes = 0;     // model.* and lm_head.*, the checkpoint's tensors
  int64_t rope_table_bytes = 0;    // model.rotary_emb.* or cos/sin_cache: precomputed tables
  int64_t kv_bytes_per_token = 0;  // every past_key_values.* input, per token of one sequence
  const onnx::ModelProto* model = nullptr;
};

const onnx::TensorProto* Initializer(const onnx::ModelProto& model, const std::string& name) {
  for (const auto& t : model.graph().initializer()) {
    if (t.name() == name) return &t;
  }
  return nullptr;
}

// Builds the decode form of `file` (external weights: nothing is made) and measures it.
// `options` defaults to BuildOptions' own: unfused attention, plain weights.
ModelBytes Measure(const std::string& file, onnx::ModelProto* model,
                   BuildOptions options = BuildOptions()) {
  const HfConfig read = ReadHfConfig(kConfigs + file);
  options.form = Form::kDecode;
  options.external_weights = true;
  options.weights_location = file + ".data";
  *model = BuildDecoder(read.config, options, nullptr);
  ModelBytes bytes;
  bytes.model = model;
  for (const auto& t : model->graph().initializer()) {
    if (StartsWith(t.name(), "model.rotary_emb.") || t.name() == "cos_cache" ||
        t.name() == "sin_cache") {
      bytes.rope_table_bytes += testing::OnnxTensorBytes(t);
    } else if (StartsWith(t.name(), "model.") || StartsWith(t.name(), "lm_head.")) {
      bytes.parameter_bytes += testing::OnnxTensorBytes(t);
    }
  }
  for (const auto& input : model->graph().input()) {
    if (!StartsWith(input.name(), "past_key_values.")) continue;
    int64_t per_token = testing::OnnxElementBytes(input.type().tensor_type().elem_type());
    for (const auto& dim : input.type().tensor_type().shape().dim()) {
      if (dim.has_dim_value()) per_token *= dim.dim_value();  // batch, past_sequence: 1
    }
    bytes.kv_bytes_per_token += per_token;
  }
  return bytes;
}

TEST_CASE("Llama-3.1-8B: 8.03e9 parameters, 128 KiB of KV cache per token", "[generator][bytes]") {
  onnx::ModelProto model;
  const ModelBytes m = Measure("llama-3.1-8b.json", &model);
  // Per layer: q 4096*4096 + k 4096*1024 + v 4096*1024 + o 4096*4096 = 41,943,040;
  // MLP 3*4096*14336 = 176,160,768; two norms 8,192: 218,112,000. 32 layers: 6,979,584,000.
  // Embedding and LM head 2*128256*4096 = 1,050,673,152; final norm 4,096.
  // Total 8,030,261,248 (8.03e9) parameters, bf16: 16,060,522,496 bytes.
  CHECK(m.parameter_bytes == 16'060'522'496);
  // cos and sin tables: 2 * 131072 positions * 128 * 2 bytes.
  CHECK(m.rope_table_bytes == 67'108'864);
  // 32 layers * (key + value) * 8 KV heads * 128 * 2 bytes = 131,072 bytes per token.
  CHECK(m.kv_bytes_per_token == 131'072);
}

TEST_CASE("Llama-3.1-70B: 70.6e9 parameters, 320 KiB of KV cache per token", "[generator][bytes]") {
  onnx::ModelProto model;
  const ModelBytes m = Measure("llama-3.1-70b.json", &model);
  // Per layer: q and o 2*8192*8192 = 134,217,728; k and v 2*8192*1024 = 16,777,216;
  // MLP 3*8192*28672 = 704,643,072; norms 16,384: 855,654,400. 80 layers: 68,452,352,000.
  // Embedding and LM head 2*128256*8192 = 2,101,346,304; final norm 8,192.
  // Total 70,553,706,496 (70.6e9); bf16: 141,107,412,992 bytes.
  CHECK(m.parameter_bytes == 141'107'412'992);
  // 80 layers * 2 * 8 * 128 * 2 bytes.
  CHECK(m.kv_bytes_per_token == 327'680);
}

TEST_CASE("Llama-3.2-1B, tied: the embedding is also the LM head", "[generator][bytes]") {
  onnx::ModelProto model;
  const ModelBytes m = Measure("llama-3.2-1b.json", &model);
  // Per layer: q and o 2*2048*2048 = 8,388,608; k and v 2*2048*512 = 2,097,152 (8 heads of
  // 64); MLP 3*2048*8192 = 50,331,648; norms 4,096: 60,821,504. 16 layers: 973,144,064.
  // One table 128256*2048 = 262,668,288 (tied: no lm_head.weight); final norm 2,048.
  // Total 1,235,814,400 (1.24e9); bf16: 2,471,628,800 bytes.
  CHECK(m.parameter_bytes == 2'471'628'800);
  CHECK(Initializer(model, "lm_head.weight") == nullptr);
  const onnx::TensorProto* table = Initializer(model, "model.embed_tokens.weight");
  REQUIRE(table != nullptr);
  CHECK(table->dims(0) == 2048);  // stored [hidden, vocab]: the LM head's [in, out]
  CHECK(table->dims(1) == 128256);
  // 16 layers * 2 * 8 heads * 64 * 2 bytes.
  CHECK(m.kv_bytes_per_token == 32'768);
}

TEST_CASE("Mistral-7B-v0.3: 7.25e9 parameters", "[generator][bytes]") {
  onnx::ModelProto model;
  const ModelBytes m = Measure("mistral-7b-v0.3.json", &model);
  // Layers as Llama-3.1-8B: 32 * 218,112,000 = 6,979,584,000. Embedding and LM head
  // 2*32768*4096 = 268,435,456; final norm 4,096. Total 7,248,023,552; bf16 14,496,047,104.
  CHECK(m.parameter_bytes == 14'496'047'104);
  // 32768 positions: 2 * 32768 * 128 * 2 bytes.
  CHECK(m.rope_table_bytes == 16'777'216);
  CHECK(m.kv_bytes_per_token == 131'072);
}

TEST_CASE("Qwen2-7B: 7.62e9 parameters with q/k/v biases", "[generator][bytes]") {
  onnx::ModelProto model;
  const ModelBytes m = Measure("qwen2-7b.json", &model);
  // Per layer: q and o 2*3584*3584 = 25,690,112; k and v 2*3584*512 = 3,670,016 (4 heads of
  // 128); biases 3584 + 512 + 512 = 4,608; MLP 3*3584*18944 = 203,685,888; norms 7,168:
  // 233,057,792. 28 layers: 6,525,618,176. Embedding and LM head 2*152064*3584 =
  // 1,089,994,752; final norm 3,584. Total 7,615,616,512 (7.62e9); bf16 15,231,233,024.
  CHECK(m.parameter_bytes == 15'231'233'024);
  const onnx::TensorProto* k_bias = Initializer(model, "model.layers.0.self_attn.k_proj.bias");
  REQUIRE(k_bias != nullptr);
  CHECK(k_bias->dims(0) == 512);
  CHECK(Initializer(model, "model.layers.0.self_attn.o_proj.bias") == nullptr);
  // 28 layers * 2 * 4 heads * 128 * 2 bytes.
  CHECK(m.kv_bytes_per_token == 57'344);
}

TEST_CASE("Mixtral-8x7B: 46.7e9 parameters", "[generator][bytes]") {
  onnx::ModelProto model;
  const ModelBytes m = Measure("mixtral-8x7b.json", &model);
  // Per layer: attention 41,943,040; 8 experts * 3*4096*14336 = 1,409,286,144; router
  // 4096*8 = 32,768; norms 8,192: 1,451,270,144. 32 layers: 46,440,644,608. Embedding and LM
  // head 2*32000*4096 = 262,144,000; final norm 4,096. Total 46,702,792,704; bf16
  // 93,405,585,408.
  CHECK(m.parameter_bytes == 93'405'585'408);
  CHECK(m.kv_bytes_per_token == 131'072);
}

TEST_CASE("DeepSeek-V3: 671e9 parameters and MLA's 576 cached values per token and layer",
          "[generator][bytes]") {
  onnx::ModelProto model;
  const ModelBytes m = Measure("deepseek-v3.json", &model);
  // Attention per layer: q_a_proj 7168*1536 = 11,010,048; q_a_layernorm 1,536; q_b_proj
  // 1536*128*(128+64) = 37,748,736; kv_a_proj_with_mqa 7168*(512+64) = 4,128,768;
  // kv_a_layernorm 512; kv_b_proj 512*128*(128+128) = 16,777,216 (stored as its two halves);
  // o_proj 128*128*7168 = 117,440,512: 187,107,328; plus two norms 14,336: 187,121,664.
  // 61 layers: 11,414,421,504. Dense MLP (3 layers) 3 * 3*7168*18432 = 1,189,085,184.
  // MoE (58 layers): 256 experts * 3*7168*2048 = 11,274,289,152, one shared 44,040,192,
  // router 7168*256 = 1,835,008: 11,320,164,352 per layer, 656,569,532,416 in all.
  // Embedding and LM head 2*129280*7168 = 1,853,358,080; final norm 7,168.
  // Total 671,026,404,352 (671e9) bf16 parameters: 1,342,052,808,704 bytes, plus the router's
  // float32 score bias, 58 * 256 * 4 = 59,392 bytes: 1,342,052,868,096.
  CHECK(m.parameter_bytes == 1'342'052'868'096);
  // Rotary tables of the 64 rotated dims: 2 * 163840 * 64 * 2 bytes.
  CHECK(m.rope_table_bytes == 41'943'040);
  // 61 layers * (512 latent + 64 rotary key) * 2 bytes = 70,272 bytes per token.
  CHECK(m.kv_bytes_per_token == 70'272);

  const onnx::TensorProto* uk = Initializer(model, "model.layers.0.self_attn.kv_b_proj.weight_uk");
  const onnx::TensorProto* uv = Initializer(model, "model.layers.0.self_attn.kv_b_proj.weight_uv");
  REQUIRE(uk != nullptr);
  REQUIRE(uv != nullptr);
  CHECK(std::vector<int64_t>(uk->dims().begin(), uk->dims().end()) ==
        std::vector<int64_t>{128, 128, 512});
  CHECK(std::vector<int64_t>(uv->dims().begin(), uv->dims().end()) ==
        std::vector<int64_t>{128, 512, 128});
  const onnx::TensorProto* bias =
      Initializer(model, "model.layers.3.mlp.gate.e_score_correction_bias");
  REQUIRE(bias != nullptr);
  CHECK(bias->data_type() == onnx::TensorProto_DataType_FLOAT);
  CHECK(Initializer(model, "model.layers.2.mlp.gate.weight") == nullptr);  // layer 2 is dense
}

BuildOptions WithWeights(WeightFormat format) {
  BuildOptions options;
  options.weights = format;
  return options;
}

TEST_CASE("Llama-3.1-8B, int4: MatMulNBits blocks of 32 with bf16 scales", "[generator][bytes]") {
  onnx::ModelProto model;
  const ModelBytes m = Measure("llama-3.1-8b.json", &model, WithWeights(WeightFormat::kInt4));
  // Projection weights per layer 41,943,040 + 176,160,768 = 218,103,808: packed K*N/2 =
  // 109,051,904 bytes, scales K/32*N = 6,815,744 of 2 bytes = 13,631,488; norms 8,192 * 2 =
  // 16,384: 122,699,776 per layer, 3,926,392,832 for 32. LM head 4096*128256 = 525,336,576:
  // 262,668,288 packed + 16,416,768 scales * 2 = 32,833,536. Embedding stays bf16
  // 1,050,673,152; final norm 8,192. Total 5,272,576,000.
  CHECK(m.parameter_bytes == 5'272'576'000);
  const onnx::TensorProto* q = Initializer(model, "model.layers.0.self_attn.q_proj.weight_Q4");
  REQUIRE(q != nullptr);
  // [N, K / 32, 32 / 2]: 4096 * 128 * 16 = 8,388,608 bytes = 4096 * 4096 / 2.
  CHECK(std::vector<int64_t>(q->dims().begin(), q->dims().end()) ==
        std::vector<int64_t>{4096, 128, 16});
}

TEST_CASE("Llama-3.1-8B, int8: one byte a weight, the same scales", "[generator][bytes]") {
  onnx::ModelProto model;
  const ModelBytes m = Measure("llama-3.1-8b.json", &model, WithWeights(WeightFormat::kInt8));
  // Per layer: 218,103,808 bytes of codes + 13,631,488 of scales + 16,384 of norms =
  // 231,751,680; 32 layers 7,416,053,760. LM head 525,336,576 + 32,833,536; embedding
  // 1,050,673,152; final norm 8,192. Total 9,024,905,216.
  CHECK(m.parameter_bytes == 9'024'905'216);
  const onnx::TensorProto* down = Initializer(model, "model.layers.0.mlp.down_proj.weight_Q8");
  REQUIRE(down != nullptr);
  // [N, K / 32, 32]: 4096 * 448 * 32 = 14336 * 4096 bytes.
  CHECK(std::vector<int64_t>(down->dims().begin(), down->dims().end()) ==
        std::vector<int64_t>{4096, 448, 32});
}

TEST_CASE("DeepSeek-V3's fp8 checkpoint: 1 byte a weight plus a float32 scale per 128x128 block",
          "[generator][bytes]") {
  const HfConfig read = ReadHfConfig(kConfigs + "deepseek-v3.json");
  // quantization_config: fp8, weight_block_size [128, 128].
  REQUIRE(read.fp8_block_rows == 128);
  REQUIRE(read.fp8_block_cols == 128);
  onnx::ModelProto model;
  BuildOptions options = WithWeights(WeightFormat::kFp8);  // what hyperplan-gen defaults to
  options.fp8_block_rows = read.fp8_block_rows;
  options.fp8_block_cols = read.fp8_block_cols;
  const ModelBytes m = Measure("deepseek-v3.json", &model, options);
  // Attention per layer, codes (bytes) and blocks (4-byte scales, rounded up):
  //   q_a_proj 7168x1536 11,010,048, 56*12 = 672; q_b_proj 1536x24576 37,748,736, 12*192 =
  //   2,304; kv_a_proj_with_mqa 7168x576 4,128,768, 56*5 = 280 (576 = 4.5 blocks);
  //   weight_uk 128 x 128x512 8,388,608, 128*1*4 = 512; weight_uv 128 x 512x128 8,388,608,
  //   512; o_proj 16384x7168 117,440,512, 128*56 = 7,168.
  //   Codes 187,105,280, scales 11,448 * 4 = 45,792, norms (1536 + 512 + 2*7168) * 2 = 32,768:
  //   187,183,840; 61 layers 11,418,214,240.
  // Dense MLP (3 layers): 3 matrices of 7168*18432 = 132,120,576 codes and 56*144 = 8,064
  //   blocks (32,256 bytes): 396,458,496 per layer, 1,189,375,488.
  // MoE (58 layers): 257 experts (256 routed + 1 shared) of 3 matrices 7168*2048 = 14,680,064
  //   codes and 56*16 = 896 blocks (3,584 bytes): 44,050,944 each, 11,321,092,608; router
  //   stays bf16 7168*256*2 = 3,670,016; score bias 256*4 = 1,024: 11,324,763,648 per layer,
  //   656,836,291,584 in all.
  // Embedding and LM head stay bf16: 2*129280*7168*2 = 3,706,716,160; final norm 14,336.
  // Total 673,150,611,808 bytes: half of the bf16 model's 1,342,052,868,096, plus scales.
  CHECK(m.parameter_bytes == 673'150'611'808);
  CHECK(m.kv_bytes_per_token == 70'272);  // the cache stays bf16
  const onnx::TensorProto* scales =
      Initializer(model, "model.layers.0.self_attn.kv_a_proj_with_mqa.weight_scale_inv");
  REQUIRE(scales != nullptr);
  CHECK(scales->data_type() == onnx::TensorProto_DataType_FLOAT);
  // [K blocks, 1, N blocks, 1]: 56 x 5 blocks.
  CHECK(std::vector<int64_t>(scales->dims().begin(), scales->dims().end()) ==
        std::vector<int64_t>{56, 1, 5, 1});
  const onnx::TensorProto* lm_head = Initializer(model, "lm_head.weight");
  REQUIRE(lm_head != nullptr);
  CHECK(lm_head->data_type() == onnx::TensorProto_DataType_BFLOAT16);
}

}  // namespace
}  // namespace hyperplan::gen
