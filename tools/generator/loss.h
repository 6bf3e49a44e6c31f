// Token-level cross-entropy of the training step and its gradient: loss = -sum over tokens of
// log softmax(logits)[label] (a summed, not averaged, loss, so no token count is needed as a
// value), and d loss / d logits = softmax(logits) - one_hot(label).
// Cost: 11 nodes, most over [batch, sequence, vocab]. Limits: no ignore index, no label
// smoothing; the loss runs in the model's element type.
#pragma once

#include <string>

#include "train_context.h"

namespace hyperplan::gen {

struct LossResult {
  std::string loss;         // scalar graph output "loss"
  std::string logits_grad;  // [batch, sequence, vocab]
};

// `labels` is a [batch, sequence] int64 graph input.
LossResult CrossEntropy(TrainContext& t, const std::string& logits, const std::string& labels);

}  // namespace hyperplan::gen
