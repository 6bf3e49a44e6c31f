// Shape rules for ONNX Runtime's com.microsoft operators, checked against hand-derived shapes.
#include <catch2/catch.hpp>

#include "model_builder.h"

namespace hyperplan::test {
namespace {

constexpr char kMs[] = "com.microsoft";
using Dims = std::vector<int64_t>;
constexpr int32_t kInt8 = 3;  // TensorProto.INT8

onnx::ModelProto ContribModel() {
  onnx::ModelProto model = MakeModel(17);
  AddOpset(model, kMs, 1);
  return model;
}

onnx::TensorProto* AddInt32Scalar(onnx::GraphProto& graph, const std::string& name, int32_t value) {
  onnx::TensorProto* tensor = graph.add_initializer();
  tensor->set_name(name);
  tensor->set_data_type(kInt32);
  tensor->add_int32_data(value);
  return tensor;
}

// total_sequence_length computed from the shapes, as exporters write it for separate
// past/present caches: Cast(Squeeze(Shape(past_key)[2] + Shape(key)[1])) to int32.
void AddTotalFromShapes(onnx::GraphProto& graph, const std::string& name) {
  onnx::NodeProto* past = AddNode(graph, "Shape", {"past_key"}, {"past_length"}, "past_shape");
  SetAttribute(past, "start", 2);
  SetAttribute(past, "end", 3);
  onnx::NodeProto* added = AddNode(graph, "Shape", {"key"}, {"new_length"}, "new_shape");
  SetAttribute(added, "start", 1);
  SetAttribute(added, "end", 2);
  AddNode(graph, "Add", {"past_length", "new_length"}, {"total_1d"}, "total_add");
  AddNode(graph, "Squeeze", {"total_1d"}, {"total_64"}, "total_squeeze");
  SetAttribute(AddNode(graph, "Cast", {"total_64"}, {name}, "total_cast"), "to", kInt32);
}

void SetStringAttribute(onnx::NodeProto* node, const std::string& name, const std::string& text) {
  onnx::AttributeProto* attribute = node->add_attribute();
  attribute->set_name(name);
  attribute->set_type(onnx::AttributeProto::STRING);
  attribute->set_s(text);
}

TEST_CASE("GroupQueryAttention: separate Q/K/V with a past cache", "[onnx][contrib]") {
  onnx::ModelProto model = ContribModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  // 32 query heads and 8 key/value heads of size 128: hidden 4096, kv hidden 1024.
  AddInput(graph, "query", kFloat16, {2, 5, 4096});
  AddInput(graph, "key", kFloat16, {2, 5, 1024});
  AddInput(graph, "value", kFloat16, {2, 5, 1024});
  AddInput(graph, "past_key", kFloat16, {2, 8, "past", 128});
  AddInput(graph, "past_value", kFloat16, {2, 8, "past", 128});
  AddInput(graph, "seqlens_k", kInt32, {2});
  AddTotalFromShapes(graph, "total_sequence_length");
  onnx::NodeProto* gqa = AddNode(
      graph, "GroupQueryAttention",
      {"query", "key", "value", "past_key", "past_value", "seqlens_k", "total_sequence_length"},
      {"attn", "present_key", "present_value"}, "gqa", kMs);
  SetAttribute(gqa, "num_heads", 32);
  SetAttribute(gqa, "kv_num_heads", 8);
  for (const char* out : {"attn", "present_key", "present_value"}) AddUntypedOutput(graph, out);
  ImportOptions options;
  options.dims = {{"past", 7}};
  const Graph imported = Import(model, options);
  // output (B, S, N*H) = [2, 5, 4096]: 2*5*4096*2 bytes = 81920.
  CHECK(ValueNamed(imported, "attn").shape == Dims{2, 5, 4096});
  CHECK(ValueNamed(imported, "attn").bytes == 81920);
  CHECK(ValueNamed(imported, "attn").dtype == DType::kFloat16);
  // present (B, KVN, P + L, H) = [2, 8, 7 + 5, 128]: 2*8*12*128*2 bytes = 49152.
  CHECK(ValueNamed(imported, "present_key").shape == Dims{2, 8, 12, 128});
  CHECK(ValueNamed(imported, "present_key").bytes == 49152);
  CHECK(ValueNamed(imported, "present_value").shape == Dims{2, 8, 12, 128});
  const Node& node = NodeNamed(imported, "gqa");
  CHECK(node.int_attributes.at("num_heads") == 32);
  CHECK(node.int_attributes.at("kv_num_heads") == 8);
  CHECK(node.domain == kMs);
  CHECK(imported.warnings.empty());
}

TEST_CASE("GroupQueryAttention: packed QKV", "[onnx][contrib]") {
  onnx::ModelProto model = ContribModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  // (32 + 2*8) heads of 128: 48 * 128 = 6144 packed channels.
  AddInput(graph, "qkv", kFloat16, {1, 1, 6144});
  AddInput(graph, "past_key", kFloat16, {1, 8, 16, 128});
  AddInput(graph, "past_value", kFloat16, {1, 8, 16, 128});
  AddInput(graph, "seqlens_k", kInt32, {1});
  AddInput(graph, "total", kInt32, {});
  onnx::NodeProto* gqa = AddNode(graph, "GroupQueryAttention",
                                 {"qkv", "", "", "past_key", "past_value", "seqlens_k", "total"},
                                 {"attn", "present_key", "present_value"}, "gqa", kMs);
  SetAttribute(gqa, "num_heads", 32);
  SetAttribute(gqa, "kv_num_heads", 8);
  for (const char* out : {"attn", "present_key", "present_value"}) AddUntypedOutput(graph, out);
  const Graph imported = Import(model);
  // head size 6144 / 48 = 128; output 32 * 128 = 4096 wide. total_sequence_length is a graph
  // input, so the caches are one shared buffer: present keeps past's 16 positions.
  CHECK(ValueNamed(imported, "attn").shape == Dims{1, 1, 4096});
  CHECK(ValueNamed(imported, "present_key").shape == Dims{1, 8, 16, 128});
  // Omitted optional inputs are left out of the node: 5 of 7.
  CHECK(NodeNamed(imported, "gqa").inputs.size() == 5);
}

TEST_CASE("GroupQueryAttention: a constant total length sizes the cache", "[onnx][contrib]") {
  onnx::ModelProto model = ContribModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "query", kFloat16, {1, 4, 4096});
  AddInput(graph, "key", kFloat16, {1, 4, 1024});
  AddInput(graph, "value", kFloat16, {1, 4, 1024});
  AddInput(graph, "past_key", kFloat16, {1, 8, 16, 128});
  AddInput(graph, "past_value", kFloat16, {1, 8, 16, 128});
  AddInput(graph, "seqlens_k", kInt32, {1});
  AddInt32Scalar(graph, "total", 20);
  onnx::NodeProto* gqa =
      AddNode(graph, "GroupQueryAttention",
              {"query", "key", "value", "past_key", "past_value", "seqlens_k", "total"},
              {"attn", "present_key", "present_value"}, "gqa", kMs);
  SetAttribute(gqa, "num_heads", 32);
  SetAttribute(gqa, "kv_num_heads", 8);
  for (const char* out : {"attn", "present_key", "present_value"}) AddUntypedOutput(graph, out);
  const Graph imported = Import(model);
  // max(past 16, total 20) = 20 positions.
  CHECK(ValueNamed(imported, "present_key").shape == Dims{1, 8, 20, 128});
}

TEST_CASE("GroupQueryAttention: a prompt without a past cache", "[onnx][contrib]") {
  onnx::ModelProto model = ContribModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "query", kFloat16, {1, 5, 4096});
  AddInput(graph, "key", kFloat16, {1, 5, 1024});
  AddInput(graph, "value", kFloat16, {1, 5, 1024});
  AddInput(graph, "seqlens_k", kInt32, {1});
  AddInput(graph, "total", kInt32, {});
  onnx::NodeProto* gqa =
      AddNode(graph, "GroupQueryAttention", {"query", "key", "value", "", "", "seqlens_k", "total"},
              {"attn", "present_key", "present_value"}, "gqa", kMs);
  SetAttribute(gqa, "num_heads", 32);
  SetAttribute(gqa, "kv_num_heads", 8);
  for (const char* out : {"attn", "present_key", "present_value"}) AddUntypedOutput(graph, out);
  const Graph imported = Import(model);
  CHECK(ValueNamed(imported, "present_value").shape == Dims{1, 8, 5, 128});
}

// A decode step of 8 query heads and 2 KV heads of 64 with an 8-bit cache of `cache_type`
// and scales of `scale_dims`; past 30 positions, the total a graph input unless `computed`.
onnx::ModelProto QuantizedCacheModel(int32_t cache_type, const std::vector<int64_t>& scale_dims,
                                     bool computed) {
  onnx::ModelProto model = ContribModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "query", kFloat16, {1, 1, 512});
  AddInput(graph, "key", kFloat16, {1, 1, 128});
  AddInput(graph, "value", kFloat16, {1, 1, 128});
  AddInput(graph, "past_key", cache_type, {1, 2, 30, 64});
  AddInput(graph, "past_value", cache_type, {1, 2, 30, 64});
  AddInput(graph, "seqlens_k", kInt32, {1});
  if (computed) {
    AddTotalFromShapes(graph, "total");
  } else {
    AddInput(graph, "total", kInt32, {});
  }
  AddInput(graph, "k_scale", kFloat, {scale_dims.begin(), scale_dims.end()});
  AddInput(graph, "v_scale", kFloat, {scale_dims.begin(), scale_dims.end()});
  onnx::NodeProto* gqa = AddNode(graph, "GroupQueryAttention",
                                 {"query", "key", "value", "past_key", "past_value", "seqlens_k",
                                  "total", "", "", "", "", "", "k_scale", "v_scale"},
                                 {"attn", "present_key", "present_value"}, "gqa", kMs);
  SetAttribute(gqa, "num_heads", 8);
  SetAttribute(gqa, "kv_num_heads", 2);
  SetAttribute(gqa, "kv_cache_bit_width", 8);
  const bool per_channel = scale_dims.size() == 4;
  SetStringAttribute(gqa, "k_quant_type", per_channel ? "PER_CHANNEL" : "PER_TENSOR");
  SetStringAttribute(gqa, "v_quant_type", per_channel ? "PER_CHANNEL" : "PER_TENSOR");
  for (const char* out : {"attn", "present_key", "present_value"}) AddUntypedOutput(graph, out);
  return model;
}

TEST_CASE("GroupQueryAttention: an int8 cache appends at one byte an element", "[onnx][contrib]") {
  const Graph imported = Import(QuantizedCacheModel(kInt8, {1}, true));
  // present (B, KVN, P + L, H) = [1, 2, 30 + 1, 64] int8: 1*2*31*64*1 = 3968 bytes (float16
  // would be 7936); past 1*2*30*64 = 3840 bytes.
  const Value& present = ValueNamed(imported, "present_key");
  CHECK(present.shape == Dims{1, 2, 31, 64});
  CHECK(present.dtype == DType::kInt8);
  CHECK(present.bytes == 3968);
  CHECK(ValueNamed(imported, "present_value").bytes == 3968);
  CHECK(ValueNamed(imported, "past_key").bytes == 3840);
  // Per-tensor scales: one float each, 4 bytes.
  CHECK(ValueNamed(imported, "k_scale").bytes == 4);
  // The output stays in the query's type: [1, 1, 512] float16 = 1024 bytes.
  CHECK(ValueNamed(imported, "attn").dtype == DType::kFloat16);
  CHECK(ValueNamed(imported, "attn").bytes == 1024);
  // The scales are inputs 12 and 13 of the node: 7 + 2 present inputs (the empty 7-11 dropped).
  CHECK(NodeNamed(imported, "gqa").inputs.size() == 9);
  // ... and the positions present, for the cost rules: 0-6, 12 and 13 = 0x7f + 4096 + 8192.
  CHECK(NodeNamed(imported, "gqa").int_attributes.at("input_positions") == 12415);
  CHECK(imported.warnings.empty());
}

TEST_CASE("GroupQueryAttention: a float8 cache with per-channel scales", "[onnx][contrib]") {
  constexpr int32_t kFloat8E4M3FN = 17;
  const Graph imported = Import(QuantizedCacheModel(kFloat8E4M3FN, {1, 2, 1, 64}, true));
  const Value& present = ValueNamed(imported, "present_value");
  CHECK(present.dtype == DType::kFloat8E4M3FN);
  CHECK(present.bytes == 3968);  // [1, 2, 31, 64] at 1 byte: 3968
  // Per-channel scales [1, KVN, 1, H] = 2 * 64 floats = 512 bytes.
  CHECK(ValueNamed(imported, "v_scale").bytes == 512);
}

TEST_CASE("GroupQueryAttention: a total given as an input is the shared buffer's form",
          "[onnx][contrib]") {
  const Graph imported = Import(QuantizedCacheModel(kInt8, {1}, false));
  // past and present one max_length buffer: present keeps past's [1, 2, 30, 64] int8,
  // 3840 bytes, so the loop sees one buffer and charges only the new row.
  CHECK(ValueNamed(imported, "present_key").shape == Dims{1, 2, 30, 64});
  CHECK(ValueNamed(imported, "present_key").bytes == 3840);
}

TEST_CASE("GroupQueryAttention: a 4-bit prompt cache packs two codes a byte", "[onnx][contrib]") {
  onnx::ModelProto model = ContribModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "query", kFloat, {1, 5, 512});
  AddInput(graph, "key", kFloat, {1, 5, 128});
  AddInput(graph, "value", kFloat, {1, 5, 128});
  AddInput(graph, "seqlens_k", kInt32, {1});
  AddInput(graph, "total", kInt32, {});
  AddInput(graph, "k_scale", kFloat, {1});
  AddInput(graph, "v_scale", kFloat, {1});
  onnx::NodeProto* gqa = AddNode(graph, "GroupQueryAttention",
                                 {"query", "key", "value", "", "", "seqlens_k", "total", "", "", "",
                                  "", "", "k_scale", "v_scale"},
                                 {"attn", "present_key", "present_value"}, "gqa", kMs);
  SetAttribute(gqa, "num_heads", 8);
  SetAttribute(gqa, "kv_num_heads", 2);
  SetAttribute(gqa, "kv_cache_bit_width", 4);
  SetStringAttribute(gqa, "k_quant_type", "PER_TENSOR");
  SetStringAttribute(gqa, "v_quant_type", "PER_TENSOR");
  for (const char* out : {"attn", "present_key", "present_value"}) AddUntypedOutput(graph, out);
  const Graph imported = Import(model);
  // No past: present [1, 2, 5, 64 / 2] uint8 (two 4-bit codes a byte) = 320 bytes.
  const Value& present = ValueNamed(imported, "present_key");
  CHECK(present.shape == Dims{1, 2, 5, 32});
  CHECK(present.dtype == DType::kUint8);
  CHECK(present.bytes == 320);
}

TEST_CASE("MultiHeadAttention: separate Q/K/V with a past cache", "[onnx][contrib]") {
  onnx::ModelProto model = ContribModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  // 12 heads of 64: hidden 768.
  AddInput(graph, "query", kFloat16, {2, 5, 768});
  AddInput(graph, "key", kFloat16, {2, 5, 768});
  AddInput(graph, "value", kFloat16, {2, 5, 768});
  AddInput(graph, "past_key", kFloat16, {2, 12, 7, 64});
  AddInput(graph, "past_value", kFloat16, {2, 12, 7, 64});
  onnx::NodeProto* mha = AddNode(graph, "MultiHeadAttention",
                                 {"query", "key", "value", "", "", "", "past_key", "past_value"},
                                 {"attn", "present_key", "present_value"}, "mha", kMs);
  SetAttribute(mha, "num_heads", 12);
  for (const char* out : {"attn", "present_key", "present_value"}) AddUntypedOutput(graph, out);
  const Graph imported = Import(model);
  CHECK(ValueNamed(imported, "attn").shape == Dims{2, 5, 768});
  // present (B, N, P + L, H) = [2, 12, 7 + 5, 64].
  CHECK(ValueNamed(imported, "present_key").shape == Dims{2, 12, 12, 64});
  CHECK(ValueNamed(imported, "present_value").shape == Dims{2, 12, 12, 64});
  const Node& node = NodeNamed(imported, "mha");
  CHECK(node.int_attributes.at("num_heads") == 12);
  CHECK(node.int_attributes.at("kv_num_heads") == 12);
}

TEST_CASE("MultiHeadAttention: packed QKV", "[onnx][contrib]") {
  onnx::ModelProto model = ContribModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "qkv", kFloat16, {2, 5, 12, 3, 64});
  SetAttribute(AddNode(graph, "MultiHeadAttention", {"qkv"}, {"attn"}, "mha", kMs), "num_heads",
               12);
  AddUntypedOutput(graph, "attn");
  const Graph imported = Import(model);
  // (B, S, N * H) = [2, 5, 12 * 64].
  CHECK(ValueNamed(imported, "attn").shape == Dims{2, 5, 768});
}

TEST_CASE("MatMulNBits: output width from N, element type from A", "[onnx][contrib]") {
  onnx::ModelProto model = ContribModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "a", kFloat16, {2, 5, 4096});
  // 4-bit blocks of 32 along K = 4096: 128 blocks of 16 bytes per output column.
  AddExternalInitializer(graph, "b", kUint8, {11008, 128, 16}, "weights.bin", 0);
  AddExternalInitializer(graph, "scales", kFloat16, {11008 * 128}, "weights.bin", 22544384);
  onnx::NodeProto* matmul =
      AddNode(graph, "MatMulNBits", {"a", "b", "scales"}, {"y"}, "qmatmul", kMs);
  SetAttribute(matmul, "K", 4096);
  SetAttribute(matmul, "N", 11008);
  SetAttribute(matmul, "block_size", 32);
  AddUntypedOutput(graph, "y");
  const Graph imported = Import(model);
  // [2, 5, 11008] float16: 2*5*11008*2 bytes = 220160.
  CHECK(ValueNamed(imported, "y").shape == Dims{2, 5, 11008});
  CHECK(ValueNamed(imported, "y").bytes == 220160);
  CHECK(ValueNamed(imported, "b").bytes == 11008 * 128 * 16);
  const Node& node = NodeNamed(imported, "qmatmul");
  CHECK(node.int_attributes.at("K") == 4096);
  CHECK(node.int_attributes.at("N") == 11008);
  CHECK(node.int_attributes.at("block_size") == 32);
  CHECK(node.int_attributes.at("bits") == 4);  // the spec's default, filled in
}

TEST_CASE("SkipLayerNormalization: all four outputs", "[onnx][contrib]") {
  onnx::ModelProto model = ContribModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat16, {2, 5, 768});
  AddInput(graph, "skip", kFloat16, {2, 5, 768});
  AddInitializer(graph, "gamma", kFloat16, {768});
  AddInitializer(graph, "beta", kFloat16, {768});
  AddNode(graph, "SkipLayerNormalization", {"x", "skip", "gamma", "beta"},
          {"y", "mean", "inv_std_var", "sum"}, "sln", kMs);
  for (const char* out : {"y", "mean", "inv_std_var", "sum"}) AddUntypedOutput(graph, out);
  const Graph imported = Import(model);
  CHECK(ValueNamed(imported, "y").shape == Dims{2, 5, 768});
  CHECK(ValueNamed(imported, "y").dtype == DType::kFloat16);
  // Statistics per row, in float: [2, 5, 1] * 4 bytes = 40.
  CHECK(ValueNamed(imported, "mean").shape == Dims{2, 5, 1});
  CHECK(ValueNamed(imported, "mean").dtype == DType::kFloat32);
  CHECK(ValueNamed(imported, "inv_std_var").bytes == 40);
  CHECK(ValueNamed(imported, "sum").shape == Dims{2, 5, 768});
}

TEST_CASE("SkipSimplifiedLayerNormalization: omitted statistics outputs", "[onnx][contrib]") {
  onnx::ModelProto model = ContribModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat16, {1, 3, 4096});
  AddInput(graph, "skip", kFloat16, {1, 3, 4096});
  AddInitializer(graph, "gamma", kFloat16, {4096});
  AddNode(graph, "SkipSimplifiedLayerNormalization", {"x", "skip", "gamma"},
          {"y", "", "", "residual"}, "ssln", kMs);
  AddUntypedOutput(graph, "y");
  AddUntypedOutput(graph, "residual");
  const Graph imported = Import(model);
  CHECK(ValueNamed(imported, "y").shape == Dims{1, 3, 4096});
  CHECK(ValueNamed(imported, "residual").bytes == 1 * 3 * 4096 * 2);
  CHECK(NodeNamed(imported, "ssln").outputs.size() == 2);
}

TEST_CASE("SimplifiedLayerNormalization in the ai.onnx and com.microsoft domains",
          "[onnx][contrib]") {
  for (const std::string domain : {"", kMs}) {
    INFO("domain '" << domain << "'");
    onnx::ModelProto model = ContribModel();
    onnx::GraphProto& graph = *model.mutable_graph();
    AddInput(graph, "x", kFloat16, {2, 5, 768});
    AddInitializer(graph, "scale", kFloat16, {768});
    AddNode(graph, "SimplifiedLayerNormalization", {"x", "scale"}, {"y", "inv_std_var"}, "norm",
            domain);
    AddUntypedOutput(graph, "y");
    AddUntypedOutput(graph, "inv_std_var");
    const Graph imported = Import(model);
    CHECK(ValueNamed(imported, "y").shape == Dims{2, 5, 768});
    CHECK(ValueNamed(imported, "y").dtype == DType::kFloat16);
    // Reduced over the last axis, stashed in float: [2, 5, 1].
    CHECK(ValueNamed(imported, "inv_std_var").shape == Dims{2, 5, 1});
    CHECK(ValueNamed(imported, "inv_std_var").dtype == DType::kFloat32);
  }
}

TEST_CASE("RotaryEmbedding and the elementwise contrib operators keep their input's shape",
          "[onnx][contrib]") {
  onnx::ModelProto model = ContribModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat16, {2, 5, 768});
  AddInput(graph, "position_ids", kInt64, {2, 5});
  AddInitializer(graph, "cos", kFloat16, {512, 32});
  AddInitializer(graph, "sin", kFloat16, {512, 32});
  AddNode(graph, "RotaryEmbedding", {"x", "position_ids", "cos", "sin"}, {"rotated"}, "rope", kMs);
  AddNode(graph, "FastGelu", {"rotated"}, {"activated"}, "gelu", kMs);
  AddUntypedOutput(graph, "activated");
  const Graph imported = Import(model);
  CHECK(ValueNamed(imported, "rotated").shape == Dims{2, 5, 768});
  CHECK(ValueNamed(imported, "activated").shape == Dims{2, 5, 768});
  CHECK(ValueNamed(imported, "activated").dtype == DType::kFloat16);
}

TEST_CASE("an operator without a shape rule is reported once per operator", "[onnx][contrib]") {
  onnx::ModelProto model = ContribModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat, {4});
  AddNode(graph, "Mystery", {"x"}, {"y"}, "", kMs);
  AddNode(graph, "Mystery", {"y"}, {"z"}, "", kMs);
  AddUntypedOutput(graph, "z");
  const Graph imported = Import(model);
  CHECK_FALSE(ValueNamed(imported, "z").size_known);
  CHECK(HasWarningContaining(imported,
                             "no shape rule for operator 'com.microsoft.Mystery' (2 "
                             "nodes)"));
  CHECK(HasWarningContaining(imported, "value 'y' has unknown size: its type is unknown"));
}

}  // namespace
}  // namespace hyperplan::test
