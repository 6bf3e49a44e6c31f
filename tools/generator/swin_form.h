// A Swin-class image classifier written as torch.onnx (the TorchScript exporter, opset 17)
// writes torchvision's swin_t with a static input: the shape arithmetic that sizes its windows
// stays in the graph as nodes on the input's Shape instead of constants, so a tool that does
// not fold it cannot size the model (issue 32). Small dims for tests:
//   input [1, 3, 28, 28] -> patch embedding (Conv 4x4 stride 4 to 8 channels, Transpose to
//   NHWC, LayerNormalization) -> stage 0: 2 blocks of dim 8, 2 heads, window 3 (7x7 padded to
//   9x9), the second shifted by 1 -> patch merging (pad to even, four strided Slices, Concat,
//   LayerNormalization, MatMul to 16) -> stage 1: 2 blocks of dim 16, 4 heads (4x4 padded to
//   6x6) -> LayerNormalization, Transpose, GlobalAveragePool, Flatten, Gemm to 1000 logits,
//   declared [Gemmlogits_dim_0, 1000] as torch declares them.
// Each block writes what torchvision's shifted_window_attention exports to:
//   padding: Shape -> Gather -> Mod/Sub/Mod -> Unsqueeze/Concat -> torch's
//     _prepare_onnx_paddings (Shape, Gather, Mul, Sub, ConstantOfShape, Concat, Reshape [-1, 2],
//     Slice step -1, Transpose, Reshape [-1], Cast) -> Pad;
//   shifted windows: torch.roll as Slice + Concat on each of the two axes, and back;
//   window partition and reverse: Reshape / Transpose with shapes Concat-ed from Gathers, Div
//     and Mul of the padded shape;
//   attention: qkv MatMul, Gather q/k/v, scaled scores plus the relative position bias (Gather
//     of the table by the constant index, Reshape, Transpose, Unsqueeze), the shifted
//     windows' mask from Range over the padded size (GreaterOrEqual, Cast, Where/Equal), Softmax;
//   unpadding: Slice with ends Unsqueeze-d from the unpadded Shape; the MLP's GELU as torch
//     writes it at opset 17 (Div, Erf, Add, Mul, Mul).
// Weights are seeded (26.8k floats: 105 KiB), inline or external (references into
// `weights_location`, a file never written). Cost: a few hundred nodes. Limits: the
// mask's regions are computed from comparisons rather than torch's slice assignments (which
// export as ScatterND over Range-built indices); the values and shapes are the same.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>

namespace hyperplan::gen {

// The classifier above; the same arguments give the same bytes. `weights_location` empty:
// weights inline.
onnx::ModelProto BuildSwinForm(uint64_t seed, const std::string& weights_location = {});

}  // namespace hyperplan::gen
