// Builds one training step of a dense Llama-style model as an ONNX graph: forward (as the
// prefill form, standard ops), a summed token cross-entropy against a `labels` input, the
// backward pass written out in plain opset-17 ops, and an Adam update of every parameter.
// Inputs: input_ids, position_ids, labels [batch, sequence] int64, and per parameter P its
// moments P.exp_avg / P.exp_avg_sq (float32). Outputs: loss (scalar), and per parameter
// P.updated, P.updated.exp_avg, P.updated.exp_avg_sq. Weights as in the other forms (inline
// for tiny presets, never-written external data at real scale). Names follow the decoder's:
// forward nodes /model/layers.{i}/..., backward /backward/layers.{i}/..., loss /loss/...,
// optimizer /optimizer/<param>/...
// Cost: about 180 nodes and 9 parameters per layer plus 14 nodes per parameter for Adam;
// O(nodes) to build. Limits: dense models only (MoE presets are refused), standard ops only;
// no activation checkpointing beyond the attention probabilities (recomputed by default,
// stashed with --train-attention stash), so every other stashed activation stays live until
// its backward use.
#pragma once

#include <onnx/onnx_pb.h>

#include "build_options.h"
#include "build_stats.h"
#include "model_config.h"

namespace hyperplan::gen {

// Throws std::invalid_argument for an MoE config, contrib ops, or a layer that departs from
// plain Llama (latent attention, biases, tied embeddings, a sliding window).
onnx::ModelProto BuildTrainStep(const ModelConfig& config, const BuildOptions& options,
                                BuildStats* stats);

}  // namespace hyperplan::gen
