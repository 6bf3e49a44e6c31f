// The gather form's quantized experts (tools/generator/moe_quantized.h): e2m1 codes by hand,
// and the bytes DeepSeek-V3 (int4, fp8) and GPT-OSS-120B (MXFP4) reference when written
// sparsely, each worked out by hand beside its assertion.
#include "moe_quantized.h"

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

struct Bytes {
  int64_t parameters = 0;      // model.* and lm_head.*
  int64_t routed_experts = 0;  // model.layers.*.mlp.experts.*
};

Bytes Measure(const onnx::ModelProto& model) {
  Bytes bytes;
  for (const auto& t : model.graph().initializer()) {
    const std::string& name = t.name();
    if (name.rfind("model.", 0) != 0 && name.rfind("lm_head.", 0) != 0) continue;
    if (name.rfind("model.rotary_emb.", 0) == 0) continue;  // precomputed tables
    const int64_t size = testing::OnnxTensorBytes(t);
    bytes.parameters += size;
    if (name.find(".mlp.experts.") != std::string::npos) bytes.routed_experts += size;
  }
  return bytes;
}

onnx::ModelProto Sparse(const std::string& file, WeightFormat weights) {
  const HfConfig read = ReadHfConfig(kConfigs + file);
  BuildOptions options;
  options.form = Form::kDecode;
  options.moe_form = MoeForm::kGather;
  options.weights = weights;
  options.external_weights = true;
  options.weights_location = file + ".data";
  return BuildDecoder(read.config, options, nullptr);
}

std::vector<int64_t> Dims(const onnx::ModelProto& model, const std::string& name) {
  for (const auto& t : model.graph().initializer())
    if (t.name() == name) return {t.dims().begin(), t.dims().end()};
  return {};
}

TEST_CASE("e2m1: eight magnitudes and a sign bit", "[generator][moe]") {
  CHECK(E2m1Value(0) == 0.0f);
  CHECK(E2m1Value(3) == 1.5f);
  CHECK(E2m1Value(7) == 6.0f);
  CHECK(E2m1Value(13) == -3.0f);  // 8 + 5: -(the sixth magnitude, 3)
  CHECK(E2m1Code(2.4f) == 4);     // nearest of 2 and 3 is 2, code 4
  CHECK(E2m1Code(-5.2f) == 15);   // nearest magnitude 6 (code 7), negative: 8 + 7
  CHECK(E2m1Code(100.0f) == 7);   // saturates at 6
  CHECK(E2m1Code(-0.1f) == 0);    // rounds to zero, written without a sign
}

TEST_CASE("DeepSeek-V3 sparse, fp8: the dense form's bytes, experts stacked", "[generator][moe]") {
  const onnx::ModelProto model = Sparse("deepseek-v3.json", WeightFormat::kFp8);
  const Bytes m = Measure(model);
  // Stacking moves no byte: per routed expert and projection 7168*2048 = 14,680,064 codes and
  // 56*16 = 896 float32 block scales, as in the dense fp8 form (hf_model_bytes_test.cc:
  // 673,150,611,808 bytes in all).
  CHECK(m.parameters == 673'150'611'808);
  // Routed experts: 58 layers * 256 * 3 * (14,680,064 + 896*4 = 14,683,648) = 58 *
  // 11,277,041,664 = 654,068,416,512.
  CHECK(m.routed_experts == 654'068'416'512);
  CHECK(Dims(model, "model.layers.3.mlp.experts.down_proj.weight_scale_inv") ==
        std::vector<int64_t>{256, 16, 1, 56, 1});  // K 2048 / 128, N 7168 / 128
}

TEST_CASE("DeepSeek-V3 sparse, int4: 4.5 bits an expert weight", "[generator][moe]") {
  const onnx::ModelProto model = Sparse("deepseek-v3.json", WeightFormat::kInt4);
  const Bytes m = Measure(model);
  // Per layer 256 experts * 3 * 14,680,064 = 11,274,289,152 weights: codes half a byte,
  // 5,637,144,576; one bf16 scale per 32, 352,321,536 * 2 = 704,643,072: 6,341,787,648.
  // 58 layers: 367,823,683,584.
  CHECK(m.routed_experts == 367'823'683'584);
  CHECK(Dims(model, "model.layers.3.mlp.experts.gate_proj.weight_Q4") ==
        std::vector<int64_t>{256, 224, 16, 2048});  // K 7168 / 32 blocks of 16 bytes
}

TEST_CASE("GPT-OSS-120B sparse, MXFP4: the checkpoint's 65.2 GB", "[generator][moe]") {
  const onnx::ModelProto model = Sparse("gpt-oss-120b.json", WeightFormat::kMxfp4);
  const Bytes m = Measure(model);
  // Expert weights per layer 3 * 128 * 2880*2880 = 3,185,049,600: codes half a byte,
  // 1,592,524,800, and one byte of exponent per 32, 99,532,800: 1,692,057,600 (4.25 bits a
  // weight). Their biases stay bf16: 128 * 3 * 2880 * 2 = 2,211,840. 36 layers:
  // 60,993,699,840.
  CHECK(m.routed_experts == 60'993'699'840);
  // Everything else bf16 as in the plain model: its 233,658,313,344 bytes less the expert
  // weights (2 * 36 * 3,185,049,600 = 229,323,571,200) and biases (79,626,240) leave
  // 4,255,115,904; with the experts 65,248,815,744 (the published checkpoint's ~65 GB).
  CHECK(m.parameters == 65'248'815'744);
  CHECK(Dims(model, "model.layers.0.mlp.experts.down_proj.weight_scales") ==
        std::vector<int64_t>{128, 90, 1, 2880});  // K 2880 / 32 blocks
}

}  // namespace
}  // namespace hyperplan::gen
