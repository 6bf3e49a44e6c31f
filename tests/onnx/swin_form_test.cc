// The generator's Swin-class form (hyperplan-gen --form swin, tools/generator/swin_form.h) as
// torch.onnx exports torchvision's swin_t (issue 32): its window padding, shifts and
// partitions are computed from the input's Shape, and its logits are declared
// [Gemmlogits_dim_0, 1000]. Imported without any --dim, every value is sized, and the sizes
// are those the arithmetic below gives.
#include "swin_form.h"

#include <catch2/catch.hpp>

#include "model_builder.h"

namespace hyperplan::test {
namespace {

using Int64s = std::vector<int64_t>;

const Graph& SwinGraph() {
  static const Graph graph = Import(gen::BuildSwinForm(1), {}, "swin.onnx");
  return graph;
}

Int64s ShapeOf(const std::string& node) {
  return ValueNamed(SwinGraph(), node + "/output_0").shape;
}

TEST_CASE("the Swin form imports with every value sized and no dim to bind", "[onnx][swin]") {
  const Graph& graph = SwinGraph();
  INFO(JoinedWarnings(graph));
  CHECK(graph.warnings.empty());
  CHECK(graph.bound_dims.empty());
  CHECK(graph.unbound_dims.empty());
  int64_t unknown = 0;
  for (const Value& value : graph.values) unknown += value.size_known ? 0 : 1;
  CHECK(unknown == 0);
  // The exporter's Gemmlogits_dim_0 is the batch of 1 the static input fixes.
  CHECK(ValueNamed(graph, "logits").shape == Int64s{1, 1000});
  CHECK(ValueNamed(graph, "logits").bytes == 4000);  // 1000 float32
}

TEST_CASE("the Swin form's windows have the sizes its shape arithmetic computes", "[onnx][swin]") {
  // Patch embedding: 28 / 4 = 7, so [1, 7, 7, 8] after the NHWC Transpose.
  CHECK(ShapeOf("/features/0/1/Transpose") == Int64s{1, 7, 7, 8});
  // Stage 0, window 3: pad (3 - 7 % 3) % 3 = 2 on H and W, 7 + 2 = 9; 9 / 3 = 3 windows a side,
  // 3 * 3 = 9 windows of 3 * 3 = 9 tokens; 2 heads of 8 / 2 = 4.
  CHECK(ShapeOf("/features/1/0/Pad") == Int64s{1, 9, 9, 8});
  CHECK(ShapeOf("/features/1/0/Reshape") == Int64s{1, 3, 3, 3, 3, 8});
  CHECK(ShapeOf("/features/1/0/Reshape_1") == Int64s{9, 9, 8});
  CHECK(ShapeOf("/features/1/0/attn/Reshape") == Int64s{9, 9, 3, 2, 4});
  CHECK(ShapeOf("/features/1/0/attn/Softmax") == Int64s{9, 2, 9, 9});
  CHECK(ShapeOf("/features/1/0/unpad/Slice_1") == Int64s{1, 7, 7, 8});  // back to 7 x 7
  // The shifted block: rolled map as padded, mask [1, 9 windows, 1, 9, 9], scores viewed as
  // [9 / 9 = 1, 9, 2, 9, 9] to add it.
  CHECK(ShapeOf("/features/1/1/roll_w/Concat") == Int64s{1, 9, 9, 8});
  CHECK(ShapeOf("/features/1/1/mask/h/Range") == Int64s{9});
  CHECK(ShapeOf("/features/1/1/mask/Unsqueeze_4") == Int64s{1, 9, 1, 9, 9});
  CHECK(ShapeOf("/features/1/1/attn/Reshape_5d") == Int64s{1, 9, 2, 9, 9});
  // Patch merging: pad 7 % 2 = 1 to 8, four 4 x 4 quarters of 8 channels -> 32 -> 16.
  CHECK(ShapeOf("/features/2/Pad") == Int64s{1, 8, 8, 8});
  CHECK(ShapeOf("/features/2/Concat") == Int64s{1, 4, 4, 32});
  CHECK(ShapeOf("/features/2/reduction/MatMul") == Int64s{1, 4, 4, 16});
  // Stage 1: pad (3 - 4 % 3) % 3 = 2, 4 + 2 = 6; 2 x 2 = 4 windows of 9 tokens.
  CHECK(ShapeOf("/features/3/0/Pad") == Int64s{1, 6, 6, 16});
  CHECK(ShapeOf("/features/3/0/Reshape_1") == Int64s{4, 9, 16});
  CHECK(ShapeOf("/features/3/1/attn/Reshape_5d") == Int64s{1, 4, 4, 9, 9});
  CHECK(ShapeOf("/features/3/1/unpad/Slice_1") == Int64s{1, 4, 4, 16});
  CHECK(ShapeOf("/flatten/Flatten") == Int64s{1, 16});
}

}  // namespace
}  // namespace hyperplan::test
