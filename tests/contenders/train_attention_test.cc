// The training step's two attention backwards (hyperplan-gen --form train --train-attention):
// by default the backward recomputes each layer's attention probabilities from the stashed
// queries and keys with the forward's own chain, so no backward node reads a forward Softmax
// and the stash loses the [batch, heads, sequence, sequence] probabilities; `stash` keeps them.
// Tiny preset (4 layers, 4 heads, float32) at batch 1, sequence 8.
#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "hyperplan/adapters/onnx_import.h"
#include "hyperplan/graph.h"
#include "support/run_command.h"
#include "support/scratch_dir.h"

namespace hyperplan::contenders_test {
namespace {

constexpr int kLayers = 4;  // the tiny preset (tools/generator/model_config.cc)

Graph GenerateTinyTrain(const std::string& train_attention) {
  // Per process: ctest runs each case as its own process, several at once.
  static const testing::ScratchDir scratch("train-attention");
  const std::string path = scratch.File("tiny-train-" + train_attention + ".onnx");
  const auto generated =
      testing::RunCommand({HYPERPLAN_GEN_PATH, "--preset", "tiny", "--form", "train",
                           "--train-attention", train_attention, "-o", path, "--check"});
  INFO(generated.stdout_text << generated.stderr_text);
  REQUIRE(generated.exit_code == 0);
  CHECK(generated.stdout_text.find("have concrete shapes") != std::string::npos);
  ImportOptions import;
  import.dims = {{"batch", 1}, { "sequence", 8 }};
  Graph graph = ImportOnnxModel(path, import);
  std::filesystem::remove(path);
  return graph;
}

bool InBackward(const Node& node) { return node.name.rfind("/backward/", 0) == 0; }

NodeId FindNode(const Graph& graph, const std::string& name) {
  for (NodeId id = 0; id < static_cast<NodeId>(graph.nodes.size()); ++id) {
    if (graph.nodes[id].name == name) return id;
  }
  return kNoNode;
}

// The node producing input `index` of `node` (kNoNode when either is missing).
NodeId ProducerOfInput(const Graph& graph, NodeId node, size_t index) {
  if (node == kNoNode || index >= graph.nodes[node].inputs.size()) return kNoNode;
  return graph.values[graph.nodes[node].inputs[index]].producer;
}

// Bytes the backward keeps from the forward: values a forward (or input-preparing) node makes
// and some backward node reads. Weights and graph inputs are excluded (not activations).
int64_t StashedBytes(const Graph& graph) {
  int64_t bytes = 0;
  for (const Value& value : graph.values) {
    if (value.producer == kNoNode || InBackward(graph.nodes[value.producer])) continue;
    for (NodeId consumer : value.consumers) {
      if (!InBackward(graph.nodes[consumer])) continue;
      bytes += value.bytes;
      break;
    }
  }
  return bytes;
}

// Backward nodes reading the output of a forward attention Softmax.
int BackwardReadsOfForwardSoftmax(const Graph& graph) {
  int reads = 0;
  for (int layer = 0; layer < kLayers; ++layer) {
    const NodeId softmax =
        FindNode(graph, "/model/layers." + std::to_string(layer) + "/attn/Softmax");
    REQUIRE(softmax != kNoNode);
    for (NodeId consumer : graph.values[graph.nodes[softmax].outputs[0]].consumers) {
      reads += InBackward(graph.nodes[consumer]);
    }
  }
  return reads;
}

TEST_CASE("training step: recomputed attention reads no forward Softmax in the backward") {
  const Graph recompute = GenerateTinyTrain("recompute");
  CHECK(BackwardReadsOfForwardSoftmax(recompute) == 0);
  // Stash form: each layer's probabilities are read by the pv_grad Transpose and the
  // softmax_grad chain, so at least one backward read per layer.
  CHECK(BackwardReadsOfForwardSoftmax(GenerateTinyTrain("stash")) >= kLayers);
}

TEST_CASE("training step: one recompute Softmax per layer, on the forward's queries and keys") {
  const Graph graph = GenerateTinyTrain("recompute");
  int recompute_softmaxes = 0;
  for (const Node& node : graph.nodes) {
    recompute_softmaxes += node.op_type == "Softmax" && InBackward(node) &&
                           node.name.find("/attn/recompute/") != std::string::npos;
  }
  CHECK(recompute_softmaxes == kLayers);
  for (int layer = 0; layer < kLayers; ++layer) {
    INFO("layer " << layer);
    const std::string forward = "/model/layers." + std::to_string(layer) + "/attn";
    const std::string again = "/backward/layers." + std::to_string(layer) + "/attn/recompute";
    const NodeId softmax = FindNode(graph, again + "/Softmax");
    REQUIRE(softmax != kNoNode);
    // Softmax <- Add (scaled, causal mask) <- Mul (scores, scale) <- MatMul (q_rotated, keys_t).
    const NodeId add = ProducerOfInput(graph, softmax, 0);
    REQUIRE(add == FindNode(graph, again + "/qk/Add"));
    const NodeId mul = ProducerOfInput(graph, add, 0);
    REQUIRE(mul == FindNode(graph, again + "/qk/Mul"));
    const NodeId matmul = ProducerOfInput(graph, mul, 0);
    REQUIRE(matmul == FindNode(graph, again + "/qk/MatMul"));
    // The same inputs as the forward's chain: the stashed rotated queries and repeated keys,
    // the forward's scale and mask.
    const NodeId forward_matmul = FindNode(graph, forward + "/qk/MatMul");
    const NodeId forward_mul = FindNode(graph, forward + "/qk/Mul");
    const NodeId forward_add = FindNode(graph, forward + "/qk/Add");
    REQUIRE(forward_matmul != kNoNode);
    REQUIRE(forward_mul != kNoNode);
    REQUIRE(forward_add != kNoNode);
    CHECK(graph.nodes[matmul].inputs == graph.nodes[forward_matmul].inputs);
    CHECK(graph.nodes[mul].inputs[1] == graph.nodes[forward_mul].inputs[1]);
    CHECK(graph.nodes[add].inputs[1] == graph.nodes[forward_add].inputs[1]);
  }
}

TEST_CASE("training step: recompute drops the probabilities from the stash") {
  const int64_t stashed = StashedBytes(GenerateTinyTrain("stash"));
  const int64_t recomputed = StashedBytes(GenerateTinyTrain("recompute"));
  // Probabilities: 4 layers x batch 1 x 4 heads x 8 x 8 x 4 bytes (float32) = 4096 bytes leave
  // the stash; the causal mask ([sequence, sequence] = 8 x 8 x 4 = 256 bytes, one for all
  // layers), read by the forward only in the stash form, joins it for the recomputed Add.
  CHECK(stashed - recomputed == 4096 - 256);
}

TEST_CASE("training step: --train-attention is refused outside --form train") {
  const std::string path =
      (std::filesystem::temp_directory_path() / "hyperplan-tiny-prefill-refused.onnx").string();
  const auto refused = testing::RunCommand({HYPERPLAN_GEN_PATH, "--preset", "tiny", "--form",
                                            "prefill", "--train-attention", "stash", "-o", path});
  CHECK(refused.exit_code != 0);
  CHECK(refused.stderr_text.find("--train-attention: applies to --form train") !=
        std::string::npos);
  CHECK_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace hyperplan::contenders_test
