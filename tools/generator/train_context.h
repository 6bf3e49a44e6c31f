// What the training step's builders share beyond the decoder context: the gradients made so
// far (each parameter with its gradient, in the order the optimizer updates them) and the
// flattened views of activations that several weight gradients read.
// Cost: none (names and a small map). Limits: one context per model being built.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "decoder_context.h"

namespace hyperplan::gen {

struct ParamGrad {
  std::string param;  // initializer name, e.g. model.layers.0.mlp.up_proj.weight
  std::string grad;   // value name of its gradient, same shape and type
  std::vector<int64_t> dims;
};

struct TrainContext {
  explicit TrainContext(DecoderContext& d) : ctx(d), graph(d.graph), config(d.config) {}

  DecoderContext& ctx;
  GraphBuilder& graph;
  const ModelConfig& config;
  std::vector<ParamGrad> grads;
  std::map<std::string, std::string> rows_of;   // activation -> its [tokens, features] view
  std::map<std::string, std::string> shape_of;  // activation -> Shape(activation)
};

}  // namespace hyperplan::gen
