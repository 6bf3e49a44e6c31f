// RecordBuildStats (build_stats.h), the one fill every builder's report line uses, counted by
// hand on the tiny gpt2-optimized model (4 layers, hidden 64, 4 heads, intermediate 192, vocab
// 512, 512 positions, float32), inline and with external weights.
#include "build_stats.h"

#include <catch2/catch.hpp>

#include "build_options.h"
#include "gpt2_optimized.h"
#include "model_config.h"

namespace hyperplan::gen {

namespace {

// Nodes: EmbedLayerNormalization, then per layer Attention, MatMul, SkipLayerNormalization,
// MatMul, FastGelu or BiasGelu, MatMul, SkipLayerNormalization (7), then the LM head MatMul:
// 1 + 4 x 7 + 1 = 30.
constexpr int64_t kNodes = 30;
// Weights: wte, wpe, ln_1 weight and bias (4); per layer c_attn, c_proj, ln_2, c_fc, mlp c_proj
// and the next norm, a weight and a bias each (12); lm_head (1): 4 + 4 x 12 + 1 = 53.
constexpr int64_t kWeights = 53;
// Floats: per layer c_attn 64 x 192 + 192, c_proj 64 x 64 + 64, ln_2 2 x 64, c_fc 64 x 192 +
// 192, mlp c_proj 192 x 64 + 64, next norm 2 x 64 = 41,728; 4 layers 166,912; wte 512 x 64 =
// 32,768, wpe 512 x 64 = 32,768, ln_1 128, lm_head 64 x 512 = 32,768: 265,344 floats x 4 B.
constexpr int64_t kWeightBytes = 265'344 * 4;

}  // namespace

TEST_CASE("build stats: nodes, weights and bytes of the tiny gpt2-optimized build", "[generator]") {
  BuildStats stats;
  BuildGpt2Optimized(*FindPreset("tiny"), BuildOptions{}, &stats);
  CHECK(stats.node_count == kNodes);
  CHECK(stats.weight_count == kWeights);
  CHECK(stats.weight_bytes == kWeightBytes);
  CHECK(stats.weights_file_bytes == 0);  // inline weights: no file
}

TEST_CASE("build stats: external weights report where the weights file ends", "[generator]") {
  BuildOptions options;
  options.external_weights = true;
  options.weights_location = "tiny.onnx.data";
  BuildStats stats;
  BuildGpt2Optimized(*FindPreset("tiny"), options, &stats);
  CHECK(stats.weight_bytes == kWeightBytes);
  // Each tensor starts on a 4096-byte boundary. Multiples of 4096 B already: wte, wpe, lm_head
  // (131,072 B each) and per layer c_attn 49,152, c_proj 16,384, c_fc 49,152, mlp c_proj
  // 49,152 (163,840 a layer); the other 34 tensors (biases and norms, 256 or 768 B: ln_1's 2
  // and 8 a layer) take one 4096-byte slot each. 393,216 + 4 x 163,840 + 34 x 4,096 = 1,187,840.
  CHECK(stats.weights_file_bytes == 1'187'840);
  // And a null stats pointer is allowed: the build reports nothing.
  CHECK_NOTHROW(BuildGpt2Optimized(*FindPreset("tiny"), options, nullptr));
}

}  // namespace hyperplan::gen
