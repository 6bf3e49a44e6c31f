// Decode steps whose loop state is named as real exporters name it: tiny stand-ins for exported
// models, so that every convention hyperplan's loop.h knows has a model written here.
//   whisper-optimum  an encoder-decoder's decoder step as Optimum exports Whisper/Marian/T5:
//                    self caches past_key_values.N.decoder.key -> present.N.decoder.key, cross
//                    caches past_key_values.N.encoder.key read every step (no present)
//   whisper-ort      the same step as ORT's whisper export names it: past_key_self_N ->
//                    present_key_self_N, cross caches past_key_cross_N
//   hybrid           a hybrid (LFM2 / Qwen3.5-like, named as transformers.js exports them): a
//                    short-conv layer (past_conv.0 -> present_conv.0, the last 3 inputs), an
//                    attention layer (past_key_values.1.key -> present.1.key) and a linear-
//                    attention layer (past_recurrent.2 -> present_recurrent.2, a 4x4 state a head)
// All: float32, hidden 8, 2 heads of 4, vocab 16, one new token (input_ids [batch_size, 1]),
// standard ai.onnx opset-17 ops, weights inline from the seeded PRNG.
// Cost: a few hundred bytes of weights, tens of nodes. Limits: no MLPs or norms (the loop state
// is what these are for); the attention is unmasked.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace hyperplan::gen {

// The forms above, by name.
const std::vector<std::string>& LoopStateFormNames();

// Builds form `name` (one of LoopStateFormNames()). Throws std::invalid_argument otherwise.
onnx::ModelProto BuildLoopStateForm(const std::string& name, uint64_t seed);

}  // namespace hyperplan::gen
