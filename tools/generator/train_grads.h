// Backward building blocks of the training step, in plain ONNX opset-17 ops: the gradient of
// a projection (Gemm with transA / transB on [tokens, features] views, so no weight is ever
// transposed into a copy and the cost model counts 2*M*N*K), of RMSNorm, of rotate-half RoPE,
// of the head split and merge, of Llama's repeat_kv (a ReduceSum over the query groups), and
// of softmax. Each returns the gradient of its input; projection and norm gradients also
// record the weight's gradient in the TrainContext.
// Cost: 3 to 10 nodes each. Limits: gradients run in the model's element type (no float32
// accumulation), as a pure-bf16 step would.
#pragma once

#include <cstdint>
#include <string>

#include "train_context.h"
#include "train_forward.h"

namespace hyperplan::gen {

// x: [batch, sequence, in]; weight: [in, out]; dy: [batch, sequence, out]. Records
// "<weight>.grad"; returns dx.
std::string LinearBackward(TrainContext& t, const std::string& x, const std::string& weight,
                           int64_t in, int64_t out, const std::string& dy, const std::string& p);

// Records the norm weight's gradient; returns dx.
std::string RmsNormBackward(TrainContext& t, const NormStash& s, const std::string& dy,
                            const std::string& p);

// dy: [batch, heads, sequence, head_dim]; returns the gradient of the unrotated input.
std::string RopeBackward(TrainContext& t, const std::string& dy, const std::string& p);

// Inverse of SplitHeads: [batch, heads, sequence, head_dim] -> [batch, sequence, heads * hd].
std::string MergeHeadsGrad(TrainContext& t, const std::string& dy, int64_t heads,
                           const std::string& p);
// Inverse of the merge before o_proj: [batch, sequence, heads * hd] -> [batch, heads, seq, hd].
std::string SplitHeadsGrad(TrainContext& t, const std::string& dy, const std::string& p);

// Gradient of RepeatKv: sums the query groups back onto the KV heads.
std::string RepeatKvBackward(TrainContext& t, const std::string& dy, bool keys,
                             const std::string& p);

// probs: the softmax output; dy: the gradient of probs. Returns the gradient of its input.
std::string SoftmaxBackward(TrainContext& t, const std::string& probs, const std::string& dy,
                            const std::string& p);

}  // namespace hyperplan::gen
