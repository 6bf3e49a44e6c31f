// The optimizer step of the training graph: Adam (first step, bias correction folded into the
// step size) on every parameter, in float32 moments. Each parameter P reads its gradient and
// the graph inputs "P.exp_avg" and "P.exp_avg_sq" ([dims] float32: the moments, named as ORT
// training artifacts and PyTorch name them, so hyperplan classifies them optimizer_state) and
// writes the graph outputs "P.updated" (model type) and "P.updated.exp_avg" /
// "P.updated.exp_avg_sq". An ONNX graph cannot update in place, so old and new moments are
// distinct values; a runtime would alias them.
// Cost: 12 nodes per parameter (14 with the casts a bf16 model needs). Limits: no weight
// decay, no gradient clipping; hyperparameters fixed (lr 1e-4, betas 0.9 / 0.999, eps 1e-8).
#pragma once

#include "train_context.h"

namespace hyperplan::gen {

// Declares the moment inputs and the updated outputs of `grad`'s parameter.
void AdamStep(TrainContext& t, const ParamGrad& grad);

}  // namespace hyperplan::gen
