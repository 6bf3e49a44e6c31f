// How one model is written, beyond its dimensions: prefill or decode form, standard ONNX ops or
// ONNX Runtime's fused contrib ops, the weight seed and where weight bytes live.
// Cost: none (plain data). Limits: contrib quantization is 4-bit only.
#pragma once

#include <cstdint>
#include <string>

namespace hyperplan::gen {

enum class Form { kPrefill, kDecode, kTrain };
enum class OpSet { kStandard, kContrib };

struct BuildOptions {
  Form form = Form::kPrefill;
  OpSet ops = OpSet::kStandard;
  uint64_t seed = 1;
  // External weights are references into `weights_location` (relative to the model file),
  // a file that is never written; inline weights are raw_data in the model itself.
  bool external_weights = false;
  std::string weights_location;
  // Standard form only: round projection weights to the 4-bit grid the contrib form stores, so
  // the two forms of one model compute the same function and their outputs can be compared.
  bool fake_quant = false;
  int64_t quant_block_size = 32;  // MatMulNBits block along K
};

}  // namespace hyperplan::gen
