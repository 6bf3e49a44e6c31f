// The deployed form hyperplan-gen writes by default (issue 29): fused GroupQueryAttention with
// no repeated KV heads, logits of the last position only, and the weight codecs behind
// --weights int4/int8/fp8. Expected values are worked by hand beside each assertion.
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "build_options.h"
#include "decoder.h"
#include "hf_config.h"
#include "quantize_fp8.h"
#include "quantize_nbits.h"

namespace hyperplan::gen {
namespace {

const std::string kConfigs = std::string(HYPERPLAN_SOURCE_DIR) + "/tests/data/hf-configs/";

onnx::ModelProto Llama8bDecode(AttentionForm attention, bool last_logits_only) {
  BuildOptions options;
  options.form = Form::kDecode;
  options.attention = attention;
  options.last_logits_only = last_logits_only;
  options.external_weights = true;
  options.weights_location = "llama-3.1-8b.onnx.data";
  return BuildDecoder(ReadHfConfig(kConfigs + "llama-3.1-8b.json").config, options, nullptr);
}

int64_t CountOps(const onnx::ModelProto& model, const std::string& op_type) {
  int64_t count = 0;
  for (const auto& node : model.graph().node()) count += node.op_type() == op_type ? 1 : 0;
  return count;
}

const onnx::ValueInfoProto* Output(const onnx::ModelProto& model, const std::string& name) {
  for (const auto& output : model.graph().output()) {
    if (output.name() == name) return &output;
  }
  return nullptr;
}

// A value's dims, symbols as their names.
std::vector<std::string> Dims(const onnx::ValueInfoProto& value) {
  std::vector<std::string> dims;
  for (const auto& dim : value.type().tensor_type().shape().dim())
    dims.push_back(dim.has_dim_value() ? std::to_string(dim.dim_value()) : dim.dim_param());
  return dims;
}

TEST_CASE("Fused attention: GroupQueryAttention reads the cache, no KV head is repeated",
          "[generator][deployed]") {
  const onnx::ModelProto fused = Llama8bDecode(AttentionForm::kFused, true);
  const onnx::ModelProto unfused = Llama8bDecode(AttentionForm::kUnfused, true);
  // Unfused: repeat_kv's Expand for keys and values in each of 32 layers = 64; the cache
  // grows by a Concat per layer and kind = 64.
  CHECK(CountOps(unfused, "Expand") == 64);
  CHECK(CountOps(unfused, "Concat") >= 64);
  // Fused: one GroupQueryAttention per layer; the only Expand is seqlens_k's, [1] -> [batch].
  CHECK(CountOps(fused, "GroupQueryAttention") == 32);
  CHECK(CountOps(fused, "Expand") == 1);
  CHECK(CountOps(fused, "Softmax") == 0);
  for (const auto& node : fused.graph().node()) {
    if (node.op_type() != "GroupQueryAttention") continue;
    // Inputs 3 and 4 are the past cache, outputs 1 and 2 the present one, in place of Concat.
    const std::string layer = node.name().substr(std::string("/model/layers.").size());
    const std::string i = layer.substr(0, layer.find('/'));
    CHECK(node.input(3) == "past_key_values." + i + ".key");
    CHECK(node.input(4) == "past_key_values." + i + ".value");
    CHECK(node.output(1) == "present." + i + ".key");
    CHECK(node.output(2) == "present." + i + ".value");
  }
  // KV bytes: present.0.key is [batch, 8 KV heads, total_sequence, 128] bf16, BNSH as the
  // unfused cache: 32 layers * 2 * 8 * 128 * 2 bytes = 131,072 bytes per token either way.
  const onnx::ValueInfoProto* key = Output(fused, "present.0.key");
  REQUIRE(key != nullptr);
  CHECK(Dims(*key) == std::vector<std::string>{"batch", "8", "total_sequence", "128"});
  CHECK(key->type().tensor_type().elem_type() == onnx::TensorProto_DataType_BFLOAT16);
}

TEST_CASE("Decode and prefill emit the last position's logits only", "[generator][deployed]") {
  const onnx::ModelProto last = Llama8bDecode(AttentionForm::kFused, true);
  const onnx::ValueInfoProto* logits = Output(last, "logits");
  REQUIRE(logits != nullptr);
  CHECK(Dims(*logits) == std::vector<std::string>{"batch", "1", "128256"});
  // The Slice of the last position feeds the LM head, so the head multiplies one row.
  const onnx::NodeProto* head = nullptr;
  for (const auto& node : last.graph().node())
    if (node.name() == "/lm_head/MatMul") head = &node;
  REQUIRE(head != nullptr);
  CHECK(head->input(0) == "/model/last_position/Slice/output_0");

  const onnx::ModelProto all = Llama8bDecode(AttentionForm::kFused, false);
  const onnx::ValueInfoProto* every = Output(all, "logits");
  REQUIRE(every != nullptr);
  CHECK(Dims(*every) == std::vector<std::string>{"batch", "sequence", "128256"});
  CHECK(all.graph().node_size() + 1 == last.graph().node_size());  // the Slice
}

TEST_CASE("fp8 e4m3fn codes round to nearest even and saturate at 448", "[generator][deployed]") {
  // Sign, 4 exponent bits (bias 7), 3 mantissa bits.
  CHECK(FloatToFloat8E4M3(1.0f) == 0x38);           // exponent 7 << 3
  CHECK(FloatToFloat8E4M3(-1.0f) == 0xB8);          // sign bit
  CHECK(FloatToFloat8E4M3(0.5f) == 0x30);           // exponent 6
  CHECK(FloatToFloat8E4M3(448.0f) == 0x7E);         // 1.75 * 2^8: exponent 15, mantissa 6
  CHECK(FloatToFloat8E4M3(1.0e6f) == 0x7E);         // saturates
  CHECK(FloatToFloat8E4M3(0.0019531250f) == 0x01);  // 2^-9, the smallest subnormal
  CHECK(FloatToFloat8E4M3(1.0625f) == 0x38);        // halfway 1.0 / 1.125: even mantissa 0
  CHECK(FloatToFloat8E4M3(1.1875f) == 0x3A);        // halfway 1.125 / 1.25: even mantissa 2
  CHECK(Float8E4M3ToFloat(0x7E) == 448.0f);
  CHECK(Float8E4M3ToFloat(0x3A) == 1.25f);

  // One 2x2 block of a 2x3 matrix with blocks of 2x2: blocks (0,0) and (0,1); max |w| of the
  // first is 4, so its scale is 4 / 448 and 4 encodes as 448 (0x7E); the second holds 0.5 and
  // 1 (max 1: scale 1/448).
  const QuantizedFp8 q = QuantizeFp8({1, -4, 0.5f, 2, 3, 1}, 1, 2, 3, 2, 2);
  REQUIRE(q.scales.size() == 2);
  CHECK(q.scales[0] == 4.0f / 448.0f);
  CHECK(q.scales[1] == 1.0f / 448.0f);
  CHECK(static_cast<uint8_t>(q.codes[1]) == 0xFE);  // -4 / (4 / 448) = -448
  CHECK(static_cast<uint8_t>(q.codes[5]) == 0x7E);  // 1 / (1 / 448) = 448
}

TEST_CASE("int8 MatMulNBits blocks: scale max|w| / 127, zero point 128", "[generator][deployed]") {
  // K = 32 (one block), N = 1; w[i] = (i - 16) / 16: max |w| = 1 at i = 0, scale 1/127.
  std::vector<float> w(32);
  for (int i = 0; i < 32; ++i) w[static_cast<size_t>(i)] = static_cast<float>(i - 16) / 16.0f;
  const QuantizedNBits q = QuantizeNBits(w, 32, 1, 32, 8, ElemType::kFloat32);
  REQUIRE(q.packed.size() == 32);  // 32 codes of one byte: K * N
  CHECK(q.scales[0] == 1.0f / 127.0f);
  CHECK(static_cast<uint8_t>(q.packed[0]) == 1);     // -1 / (1/127) = -127, + 128
  CHECK(static_cast<uint8_t>(q.packed[16]) == 128);  // 0
  const std::vector<float> back = DequantizeNBits(q);
  for (size_t i = 0; i < w.size(); ++i) CHECK(std::fabs(back[i] - w[i]) <= 0.5f / 127.0f);
  // 4 bits: two codes a byte, K * N / 2 bytes; scale 1/7.
  const QuantizedNBits q4 = QuantizeNBits(w, 32, 1, 32, 4, ElemType::kFloat32);
  CHECK(q4.packed.size() == 16);
  CHECK(q4.scales[0] == 1.0f / 7.0f);
}

}  // namespace
}  // namespace hyperplan::gen
