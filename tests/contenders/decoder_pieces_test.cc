// Decoder pieces (contenders/decoder_pieces.h): whole layers, attention cores and optimizer
// updates, on the hand-built KV decoder and on the generator's tiny decode and training steps.
#include "contenders/decoder_pieces.h"

#include <filesystem>
#include <set>
#include <string>

#include "contender_support.h"
#include "host_decoder.h"
#include "hyperplan/adapters/onnx_import.h"
#include "kv_decoder.h"
#include "support/run_command.h"

namespace hyperplan::contenders_test {
namespace {

using contenders::AttentionCore;
using contenders::BuildContenderContext;
using contenders::FindDecoderLayers;
using contenders::HomedOnHost;
using contenders::OptimizerUpdates;

std::vector<std::string> Names(const Graph& graph, const std::vector<NodeId>& nodes) {
  std::vector<std::string> names;
  for (NodeId node : nodes) names.push_back(graph.nodes[node].name);
  return names;
}

Graph Generated(const std::vector<std::string>& flags, const ImportOptions& import) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "hyperplan-decoder-pieces.onnx").string();
  std::vector<std::string> args = {HYPERPLAN_GEN_PATH, "--preset", "tiny", "-o", path};
  args.insert(args.end(), flags.begin(), flags.end());
  const auto generated = testing::RunCommand(args);
  INFO(generated.stdout_text << generated.stderr_text);
  REQUIRE(generated.exit_code == 0);
  Graph graph = ImportOnnxModel(path, import);
  std::filesystem::remove(path);
  return graph;
}

ImportOptions DecodeDims() {
  ImportOptions import;
  import.dims = {{"batch", 1}, {"sequence", 1}, { "past_sequence", 16 }};
  return import;
}

TEST_CASE("decoder pieces: the KV decoder's layers and attention cores, by hand") {
  const KvDecoder d = MakeKvDecoder(3);
  const HardwareProfile profile = HostUnitProfile(int64_t{1} << 40);
  const auto context = BuildContenderContext(d.graph, profile, d.times, d.loop);
  const auto layers = FindDecoderLayers(context);
  // No embedding part: layer 0 starts at its first weight read (proj0, step 0); every layer is
  // its four nodes, steps 4i .. 4i + 3.
  REQUIRE(layers.size() == 3);
  for (int i = 0; i < 3; ++i) {
    const std::string n = std::to_string(i);
    CHECK(layers[i].layer == i);
    CHECK(layers[i].first_step == 4 * i);
    CHECK(layers[i].last_step == 4 * i + 3);
    CHECK(Names(d.graph, layers[i].nodes) ==
          std::vector<std::string>{"proj" + n, "core" + n, "out" + n, "mlp" + n});
    // The core reads the cache; out reads a weight, so the walk stops there.
    CHECK(Names(d.graph, AttentionCore(context, layers[i])) ==
          std::vector<std::string>{"core" + n});
  }
  // UnitProfile homes the weights and, in a loop, the caches in ddr, the host tier.
  CHECK(HomedOnHost(context, layers[0].nodes));
  // Nothing is updated in place but the caches: no optimizer update.
  CHECK(OptimizerUpdates(context).empty());
}

// The name of every node, by layer, the generated graph's own ("/model/layers.N/...").
std::string FirstName(const Graph& graph, const contenders::DecoderLayer& layer) {
  return graph.nodes[layer.nodes.front()].name;
}

TEST_CASE("decoder pieces: the generated tiny decode step, fused attention") {
  const Graph graph = Generated({"--form", "decode"}, DecodeDims());
  const HardwareProfile profile = HostUnitProfile(int64_t{1} << 40);
  const LoopSpec loop{true, FindAliases(graph, {})};
  const auto context = BuildContenderContext(graph, profile, {}, loop);
  const auto layers = FindDecoderLayers(context);
  REQUIRE(layers.size() == 4);
  // Layer 0 starts after the embedding's Gather: input norm (Mul, ReduceMean, Add, Sqrt, Div,
  // Mul_1: 6), q/k/v projections (3), two rotaries, GroupQueryAttention, o_proj, the residual
  // add, the post-attention norm (6) and the MLP (gate, up, Sigmoid, Mul, Mul, down: 6) = 26
  // nodes; layers 1-3 also open with the residual add closing the layer before: 27. Layer 3's
  // residual add, the final norm and the LM head are in no layer.
  CHECK(layers[0].nodes.size() == 26);
  CHECK(FirstName(graph, layers[0]) == "/model/layers.0/input_layernorm/Mul");
  for (int i = 1; i < 4; ++i) {
    CHECK(layers[i].nodes.size() == 27);
    CHECK(FirstName(graph, layers[i]) ==
          "/model/layers." + std::to_string(i - 1) + "/mlp_residual/Add");
  }
  // The fused core is GroupQueryAttention alone: the projections read weights.
  for (int i = 0; i < 4; ++i) {
    CHECK(Names(graph, AttentionCore(context, layers[i])) ==
          std::vector<std::string>{"/model/layers." + std::to_string(i) +
                                   "/attn/GroupQueryAttention"});
  }
}

TEST_CASE("decoder pieces: the generated tiny decode step, eager attention") {
  const Graph graph = Generated({"--form", "decode", "--attention", "unfused"}, DecodeDims());
  const HardwareProfile profile = HostUnitProfile(int64_t{1} << 40);
  const LoopSpec loop{true, FindAliases(graph, {})};
  const auto context = BuildContenderContext(graph, profile, {}, loop);
  const auto layers = FindDecoderLayers(context);
  REQUIRE(layers.size() == 4);
  // Eager attention: q and k each Reshape, Transpose and a rotate-half rotary (Split, Neg,
  // Concat, Mul, Mul_1, Add): 8 each; v Reshape and Transpose: 2; the core (below): 19. With
  // the norms (6 + 6), projections (3 + o_proj), the attention residual and the MLP (6):
  // 6 + 3 + 8 + 8 + 2 + 19 + 1 + 1 + 6 + 6 = 60 nodes, 61 with the residual opening layers 1-3.
  CHECK(layers[0].nodes.size() == 60);
  CHECK(layers[3].nodes.size() == 61);
  // The core: the two appends (key_cache and value_cache Concat), repeat_kv of each
  // (Transpose, Unsqueeze, Expand, Reshape, Transpose_1: 5 + 5), scores (qk MatMul, Mul, Add),
  // Softmax and the weighted values (pv MatMul, Transpose, Reshape): 2 + 10 + 3 + 1 + 3 = 19,
  // ending before o_proj, which reads a weight.
  const auto core = Names(graph, AttentionCore(context, layers[2]));
  CHECK(core.size() == 19);
  CHECK(core.front() == "/model/layers.2/attn/key_cache/Concat");
  CHECK(core.back() == "/model/layers.2/attn/pv/Reshape");
  const std::set<std::string> names(core.begin(), core.end());
  CHECK(names.count("/model/layers.2/attn/Softmax") == 1);
  CHECK(names.count("/model/layers.2/attn/o_proj/MatMul") == 0);
  CHECK(names.count("/model/layers.2/attn/k_rotary/Add") == 0);
}

TEST_CASE("decoder pieces: the generated tiny training step's Adam updates") {
  ImportOptions import;
  import.dims = {{"batch", 1}, { "sequence", 8 }};
  const Graph graph = Generated({"--form", "train"}, import);
  const HardwareProfile profile = HostUnitProfile(int64_t{1} << 40);
  const LoopSpec loop{true, FindAliases(graph, {})};
  const auto context = BuildContenderContext(graph, profile, {}, loop);
  // A forward and a backward pass visit each layer twice: no whole layers.
  CHECK(FindDecoderLayers(context).empty());
  const auto updates = OptimizerUpdates(context);
  // 4 layers x 9 parameters + the embedding, the final norm and the LM head = 39.
  REQUIRE(updates.size() == 39);
  for (const auto& update : updates) {
    // Adam of one parameter: exp_avg (Mul, Mul_1, Add: 3), exp_avg_sq (Mul of the gradient by
    // itself, Mul_1, Mul_2, Add: 4), the step (Sqrt, Add eps, Div, Mul lr, Sub: 5) = 12 nodes,
    // all under "/optimizer/<parameter>/"; the gradient's Gemm or ReduceSum is not one of them.
    CHECK(update.size() == 12);
    const std::string first = graph.nodes[update.front()].name;
    const std::string prefix = first.substr(0, first.find('/', std::string("/optimizer/").size()));
    for (const std::string& name : Names(graph, update)) {
      CHECK(name.rfind(prefix + "/", 0) == 0);
    }
  }
  CHECK(graph.nodes[updates.back().back()].name == "/optimizer/model.embed_tokens.weight/Sub");
  std::vector<NodeId> all;
  for (const auto& update : updates) all.insert(all.end(), update.begin(), update.end());
  CHECK(HomedOnHost(context, all));
}

}  // namespace
}  // namespace hyperplan::contenders_test
