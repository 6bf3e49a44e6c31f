// Shape rules for ONNX Runtime's other fused attentions and embedding lookups, each checked
// against shapes worked out by hand from ContribOperators.md.
#include <catch2/catch.hpp>

#include "model_builder.h"

namespace hyperplan::test {
namespace {

constexpr char kMs[] = "com.microsoft";
constexpr int32_t kInt8 = 3;
using Dims = std::vector<int64_t>;

onnx::ModelProto ContribModel() {
  onnx::ModelProto model = MakeModel(17);
  AddOpset(model, kMs, 1);
  return model;
}

void UntypedOutputs(onnx::GraphProto& graph, const std::vector<std::string>& names) {
  for (const std::string& name : names) AddUntypedOutput(graph, name);
}

TEST_CASE("Attention (com.microsoft): packed past grows by the new tokens", "[onnx][contrib]") {
  onnx::ModelProto model = ContribModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  // GPT-2 small: 12 heads of 64, hidden 768; weights (768, 3*768 = 2304).
  AddInput(graph, "x", kFloat16, {2, 3, 768});
  AddInitializer(graph, "w", kFloat16, {768, 2304});
  AddInitializer(graph, "b", kFloat16, {2304});
  AddInput(graph, "mask", kInt32, {2, 10});
  AddInput(graph, "past_0", kFloat16, {2, 2, 12, "past", 64});
  onnx::NodeProto* node = AddNode(graph, "Attention", {"x", "w", "b", "mask", "past_0"},
                                  {"y", "present_0"}, "att", kMs);
  SetAttribute(node, "num_heads", 12);
  SetAttribute(node, "unidirectional", 1);
  UntypedOutputs(graph, {"y", "present_0"});
  ImportOptions options;
  options.dims = {{"past", 7}};
  const Graph imported = Import(model, options);
  // output (B, S, 2304 / 3) = [2, 3, 768]: 2*3*768*2 bytes = 9216.
  CHECK(ValueNamed(imported, "y").shape == Dims{2, 3, 768});
  CHECK(ValueNamed(imported, "y").bytes == 9216);
  // present (2, B, N, P + S, H) = [2, 2, 12, 7 + 3, 64]: 2*2*12*10*64*2 bytes = 61440.
  CHECK(ValueNamed(imported, "present_0").shape == Dims{2, 2, 12, 10, 64});
  CHECK(ValueNamed(imported, "present_0").bytes == 61440);
  CHECK(NodeNamed(imported, "att").int_attributes.at("kv_num_heads") == 12);
  CHECK(imported.warnings.empty());
}

TEST_CASE("Attention (com.microsoft): qkv_hidden_sizes, no past, and a shared buffer",
          "[onnx][contrib]") {
  onnx::ModelProto model = ContribModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  // Q 512, K 512, V 256 wide: weights (384, 1280).
  AddInput(graph, "x", kFloat, {1, 4, 384});
  AddInitializer(graph, "w", kFloat, {384, 1280});
  AddInitializer(graph, "b", kFloat, {1280});
  AddInput(graph, "past", kFloat, {2, 1, 8, 32, 64});
  onnx::NodeProto* fresh = AddNode(graph, "Attention", {"x", "w", "b"}, {"y1", "p1"}, "a1", kMs);
  SetAttribute(fresh, "num_heads", 8);
  SetAttribute(fresh, "qkv_hidden_sizes", std::vector<int64_t>{512, 512, 256});
  onnx::NodeProto* shared =
      AddNode(graph, "Attention", {"x", "w", "b", "", "past"}, {"y2", "p2"}, "a2", kMs);
  SetAttribute(shared, "num_heads", 8);
  SetAttribute(shared, "past_present_share_buffer", 1);
  UntypedOutputs(graph, {"y1", "p1", "y2", "p2"});
  const Graph imported = Import(model);
  // output width is V's: 256. present without past: (2, 1, 8, S = 4, K 512 / 8 = 64).
  CHECK(ValueNamed(imported, "y1").shape == Dims{1, 4, 256});
  CHECK(ValueNamed(imported, "p1").shape == Dims{2, 1, 8, 4, 64});
  // Without qkv_hidden_sizes V is a third of 1280, which does not divide: unknown, not 0.
  CHECK_FALSE(ValueNamed(imported, "y2").size_known);
  // A shared buffer keeps the past's max length 32: 2*1*8*32*64*4 bytes = 131072.
  CHECK(ValueNamed(imported, "p2").shape == Dims{2, 1, 8, 32, 64});
  CHECK(ValueNamed(imported, "p2").bytes == 131072);
}

TEST_CASE("EmbedLayerNormalization: output, mask index and embedding sum", "[onnx][contrib]") {
  onnx::ModelProto model = ContribModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "ids", kInt32, {2, 5});
  AddInput(graph, "segments", kInt32, {2, 5});
  AddInitializer(graph, "words", kFloat, {1000, 64});
  AddInitializer(graph, "positions", kFloat, {128, 64});
  AddInitializer(graph, "segment_table", kFloat, {2, 64});
  AddInitializer(graph, "gamma", kFloat, {64});
  AddInitializer(graph, "beta", kFloat, {64});
  AddInput(graph, "mask", kInt32, {2, 5});
  AddNode(graph, "EmbedLayerNormalization",
          {"ids", "segments", "words", "positions", "segment_table", "gamma", "beta", "mask"},
          {"embedded", "mask_index", "sum"}, "embed", kMs);
  UntypedOutputs(graph, {"embedded", "mask_index", "sum"});
  const Graph imported = Import(model);
  // (B, S, D) = [2, 5, 64] float: 2*5*64*4 bytes = 2560; mask_index (B) int32: 8 bytes.
  CHECK(ValueNamed(imported, "embedded").shape == Dims{2, 5, 64});
  CHECK(ValueNamed(imported, "embedded").bytes == 2560);
  CHECK(ValueNamed(imported, "embedded").dtype == DType::kFloat32);
  CHECK(ValueNamed(imported, "mask_index").shape == Dims{2});
  CHECK(ValueNamed(imported, "mask_index").bytes == 8);
  CHECK(ValueNamed(imported, "sum").shape == Dims{2, 5, 64});
  CHECK(ValueNamed(imported, "sum").dtype == DType::kFloat32);
}

TEST_CASE("DecoderMaskedMultiHeadAttention: the cache buffer is shared", "[onnx][contrib]") {
  onnx::ModelProto model = ContribModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  // 16 heads of 64 (1024 wide), a cache of max 256 tokens.
  AddInput(graph, "q", kFloat16, {4, 1, 1024});
  AddInput(graph, "k", kFloat16, {4, 1, 1024});
  AddInput(graph, "v", kFloat16, {4, 1, 1024});
  AddInput(graph, "past_k", kFloat16, {4, 16, 256, 64});
  AddInput(graph, "past_v", kFloat16, {4, 16, 256, 64});
  AddInput(graph, "past_len", kInt32, {1});
  onnx::NodeProto* node = AddNode(graph, "DecoderMaskedMultiHeadAttention",
                                  {"q", "k", "v", "", "", "past_k", "past_v", "past_len"},
                                  {"y", "present_k", "present_v", "qk"}, "dmmha", kMs);
  SetAttribute(node, "num_heads", 16);
  SetAttribute(node, "past_present_share_buffer", 1);
  UntypedOutputs(graph, {"y", "present_k", "present_v", "qk"});
  const Graph imported = Import(model);
  CHECK(ValueNamed(imported, "y").shape == Dims{4, 1, 1024});
  // present is the past buffer: (4, 16, 256, 64), 4*16*256*64*2 bytes = 2097152.
  CHECK(ValueNamed(imported, "present_k").shape == Dims{4, 16, 256, 64});
  CHECK(ValueNamed(imported, "present_k").bytes == 2097152);
  CHECK(ValueNamed(imported, "present_v").shape == Dims{4, 16, 256, 64});
  // qk (B, N, 1, M) float: 4*16*1*256*4 bytes = 65536.
  CHECK(ValueNamed(imported, "qk").shape == Dims{4, 16, 1, 256});
  CHECK(ValueNamed(imported, "qk").bytes == 65536);
}

TEST_CASE("PackedAttention and PackedMultiHeadAttention: tokens of a packed batch",
          "[onnx][contrib]") {
  onnx::ModelProto model = ContribModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat16, {37, 768});
  AddInitializer(graph, "w", kFloat16, {768, 2304});
  AddInitializer(graph, "b", kFloat16, {2304});
  AddInput(graph, "offsets", kInt32, {4, 16});
  AddInput(graph, "cumulative", kInt32, {5});
  onnx::NodeProto* packed =
      AddNode(graph, "PackedAttention", {"x", "w", "b", "offsets", "cumulative"}, {"y"}, "pa", kMs);
  SetAttribute(packed, "num_heads", 12);
  AddInput(graph, "qkv", kFloat16, {37, 12, 3, 64});
  onnx::NodeProto* mha = AddNode(graph, "PackedMultiHeadAttention",
                                 {"qkv", "", "", "", "offsets", "cumulative"}, {"z"}, "pmha", kMs);
  SetAttribute(mha, "num_heads", 12);
  UntypedOutputs(graph, {"y", "z"});
  const Graph imported = Import(model);
  // (T, 2304 / 3) = [37, 768]; packed QKV (T, N * H) = [37, 12 * 64 = 768].
  CHECK(ValueNamed(imported, "y").shape == Dims{37, 768});
  CHECK(ValueNamed(imported, "z").shape == Dims{37, 768});
}

TEST_CASE("PagedAttention: the block pool is the cache, updated in place", "[onnx][contrib]") {
  onnx::ModelProto model = ContribModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  // 32 query heads, 8 kv heads of 128: packed (32 + 16) * 128 = 6144; pool of 512 blocks of 16.
  AddInput(graph, "qkv", kFloat16, {"tokens", 6144});
  AddInput(graph, "key_cache", kFloat16, {512, 16, 1024});
  AddInput(graph, "value_cache", kFloat16, {512, 16, 1024});
  AddInput(graph, "cumulative", kInt32, {3});
  AddInput(graph, "past_lens", kInt32, {2});
  AddInput(graph, "blocks", kInt32, {2, 64});
  onnx::NodeProto* node =
      AddNode(graph, "PagedAttention",
              {"qkv", "", "", "key_cache", "value_cache", "cumulative", "past_lens", "blocks"},
              {"y", "key_cache_out", "value_cache_out"}, "paged", kMs);
  SetAttribute(node, "num_heads", 32);
  SetAttribute(node, "kv_num_heads", 8);
  UntypedOutputs(graph, {"y", "key_cache_out", "value_cache_out"});
  ImportOptions options;
  options.dims = {{"tokens", 9}};
  const Graph imported = Import(model, options);
  // output (T, 6144 / 48 * 32) = [9, 4096].
  CHECK(ValueNamed(imported, "y").shape == Dims{9, 4096});
  // the pool: 512*16*1024*2 bytes = 16 MiB = 16777216.
  CHECK(ValueNamed(imported, "key_cache_out").shape == Dims{512, 16, 1024});
  CHECK(ValueNamed(imported, "key_cache_out").bytes == 16777216);
  CHECK(ValueNamed(imported, "value_cache_out").shape == Dims{512, 16, 1024});
}

TEST_CASE("SparseAttention: present is the past buffer of max length", "[onnx][contrib]") {
  onnx::ModelProto model = ContribModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "q", kFloat16, {1, 8, 4096});
  AddInput(graph, "k", kFloat16, {1, 8, 1024});
  AddInput(graph, "v", kFloat16, {1, 8, 1024});
  AddInput(graph, "past_k", kFloat16, {1, 8, 2048, 128});
  AddInput(graph, "past_v", kFloat16, {1, 8, 2048, 128});
  onnx::NodeProto* node = AddNode(graph, "SparseAttention", {"q", "k", "v", "past_k", "past_v"},
                                  {"y", "present_k", "present_v"}, "sparse", kMs);
  SetAttribute(node, "num_heads", 32);
  SetAttribute(node, "kv_num_heads", 8);
  UntypedOutputs(graph, {"y", "present_k", "present_v"});
  const Graph imported = Import(model);
  CHECK(ValueNamed(imported, "y").shape == Dims{1, 8, 4096});
  // 1*8*2048*128*2 bytes = 4194304, not past + 8 tokens.
  CHECK(ValueNamed(imported, "present_k").shape == Dims{1, 8, 2048, 128});
  CHECK(ValueNamed(imported, "present_v").bytes == 4194304);
}

TEST_CASE("MultiHeadAttention: past_sequence_length means one shared buffer", "[onnx][contrib]") {
  onnx::ModelProto model = ContribModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "q", kFloat16, {1, 1, 768});
  AddInput(graph, "k", kFloat16, {1, 1, 768});
  AddInput(graph, "v", kFloat16, {1, 1, 768});
  AddInput(graph, "past_k", kFloat16, {1, 12, 1024, 64});
  AddInput(graph, "past_v", kFloat16, {1, 12, 1024, 64});
  AddInput(graph, "past_len", kInt32, {1});
  onnx::NodeProto* node = AddNode(graph, "MultiHeadAttention",
                                  {"q", "k", "v", "", "", "", "past_k", "past_v", "past_len"},
                                  {"y", "present_k", "present_v"}, "mha", kMs);
  SetAttribute(node, "num_heads", 12);
  UntypedOutputs(graph, {"y", "present_k", "present_v"});
  const Graph imported = Import(model);
  // max length 1024 stays 1024 (not 1024 + 1).
  CHECK(ValueNamed(imported, "present_k").shape == Dims{1, 12, 1024, 64});
}

TEST_CASE("GroupQueryAttention: an int8 cache keeps its type", "[onnx][contrib]") {
  onnx::ModelProto model = ContribModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "q", kFloat16, {1, 1, 4096});
  AddInput(graph, "k", kFloat16, {1, 1, 1024});
  AddInput(graph, "v", kFloat16, {1, 1, 1024});
  AddInput(graph, "past_k", kInt8, {1, 8, 15, 128});
  AddInput(graph, "past_v", kInt8, {1, 8, 15, 128});
  AddInput(graph, "seqlens", kInt32, {1});
  AddInput(graph, "total", kInt32, {});
  onnx::NodeProto* node =
      AddNode(graph, "GroupQueryAttention", {"q", "k", "v", "past_k", "past_v", "seqlens", "total"},
              {"y", "present_k", "present_v"}, "gqa", kMs);
  SetAttribute(node, "num_heads", 32);
  SetAttribute(node, "kv_num_heads", 8);
  UntypedOutputs(graph, {"y", "present_k", "present_v"});
  const Graph imported = Import(model);
  // total is a graph input, the shared buffer's form: present keeps past's (1, 8, 15, 128)
  // int8: 1*8*15*128 = 15360 bytes, half of fp16's 30720.
  CHECK(ValueNamed(imported, "present_k").shape == Dims{1, 8, 15, 128});
  CHECK(ValueNamed(imported, "present_k").bytes == 15360);
  CHECK(ValueNamed(imported, "present_k").dtype == DType::kInt8);
  CHECK(ValueNamed(imported, "y").dtype == DType::kFloat16);
}

TEST_CASE("GatherBlockQuantized: packed 4-bit rows unpack to twice their bytes",
          "[onnx][contrib]") {
  onnx::ModelProto model = ContribModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  // A (32000, 4096) table of 4-bit values packed two a byte: (32000, 2048) uint8.
  AddInitializer(graph, "table", kUint8, {32000, 2048});
  AddInput(graph, "ids", kInt64, {2, 7});
  AddInitializer(graph, "scales", kFloat16, {32000, 128});
  onnx::NodeProto* node =
      AddNode(graph, "GatherBlockQuantized", {"table", "ids", "scales"}, {"rows"}, "gbq", kMs);
  SetAttribute(node, "block_size", 32);
  UntypedOutputs(graph, {"rows"});
  const Graph imported = Import(model);
  // (2, 7, 2048 * 2) in the scales' fp16: 2*7*4096*2 bytes = 114688.
  CHECK(ValueNamed(imported, "rows").shape == Dims{2, 7, 4096});
  CHECK(ValueNamed(imported, "rows").bytes == 114688);
  CHECK(NodeNamed(imported, "gbq").int_attributes.at("bits") == 4);
  CHECK(NodeNamed(imported, "gbq").int_attributes.at("block_size") == 32);
}

TEST_CASE("MatMulNBits: 8 bits with zero points and g_idx", "[onnx][contrib]") {
  onnx::ModelProto model = ContribModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  // K 4096, N 11008, blocks of 128: 32 blocks of 128 bytes at 8 bits.
  AddInput(graph, "a", kFloat16, {1, 3, 4096});
  AddInitializer(graph, "b", kUint8, {11008, 32, 128});
  AddInitializer(graph, "scales", kFloat16, {11008 * 32});
  AddInitializer(graph, "zeros", kUint8, {11008 * 32});
  AddInitializer(graph, "g_idx", kInt32, {4096});
  onnx::NodeProto* node =
      AddNode(graph, "MatMulNBits", {"a", "b", "scales", "zeros", "g_idx"}, {"y"}, "mm", kMs);
  SetAttribute(node, "K", 4096);
  SetAttribute(node, "N", 11008);
  SetAttribute(node, "bits", 8);
  SetAttribute(node, "block_size", 128);
  UntypedOutputs(graph, {"y"});
  const Graph imported = Import(model);
  // (1, 3, N) fp16: 3*11008*2 bytes = 66048; the weight 11008*32*128 = 45088768 bytes.
  CHECK(ValueNamed(imported, "y").shape == Dims{1, 3, 11008});
  CHECK(ValueNamed(imported, "y").bytes == 66048);
  CHECK(ValueNamed(imported, "b").bytes == 45088768);
  CHECK(NodeNamed(imported, "mm").int_attributes.at("bits") == 8);
  CHECK(NodeNamed(imported, "mm").inputs.size() == 5);
}

}  // namespace
}  // namespace hyperplan::test
