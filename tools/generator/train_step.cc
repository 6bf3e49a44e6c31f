#include "train_step.h"

#include <fmt/format.h>

#include <stdexcept>
#include <vector>

#include "adam.h"
#include "attention_inputs.h"
#include "decoder_context.h"
#include "graph_builder.h"
#include "linear.h"
#include "loss.h"
#include "rope.h"
#include "train_backward.h"
#include "train_forward.h"
#include "train_grads.h"
#include "weight_store.h"

namespace hyperplan::gen {

namespace {

constexpr int64_t kIrVersion = 8;
constexpr int64_t kOnnxOpset = 17;

void Describe(onnx::ModelProto* model, const ModelConfig& c, const BuildOptions& o) {
  model->set_ir_version(kIrVersion);
  model->set_producer_name("hyperplan-gen");
  model->set_producer_version("0.1.0");
  auto* opset = model->add_opset_import();
  opset->set_domain("");
  opset->set_version(kOnnxOpset);
  model->set_doc_string(fmt::format(
      "{} training step (standard ops): {} layers, hidden {}, {} heads / {} kv heads of {}, "
      "intermediate {}, vocab {}, {}; summed cross-entropy, backward, Adam (float32 moments)",
      c.preset, c.layers, c.hidden, c.heads, c.kv_heads, c.head_dim, c.intermediate, c.vocab,
      ElemTypeName(c.dtype)));
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"hyperplan.preset", c.preset},
           {"hyperplan.form", "train"},
           {"hyperplan.ops", "standard"},
           {"hyperplan.seed", std::to_string(o.seed)}}) {
    auto* entry = model->add_metadata_props();
    entry->set_key(key);
    entry->set_value(value);
  }
}

// Embedding gradient: the token rows' gradients added into a zero [vocab, hidden] table.
void EmbeddingBackward(TrainContext& t, const std::string& table, const std::string& dy) {
  GraphBuilder& g = t.graph;
  const std::string p = "/backward/embed_tokens";
  const int64_t vocab = t.config.vocab;
  const int64_t hidden = t.config.hidden;
  const std::string zeros =
      g.Op("Expand", {g.FloatScalar(0.0f, g.dtype()), g.Int64s({vocab, hidden})}, p + "/Expand");
  const std::string rows = g.Op("Unsqueeze", {t.ctx.input_ids, g.Int64s({-1})}, p + "/Unsqueeze");
  const std::string grad = table + ".grad";
  g.Op("ScatterND", {zeros, rows, dy}, p + "/ScatterND", {AttrString("reduction", "add")}, grad);
  t.grads.push_back({table, grad, {vocab, hidden}});
}

// What the backward pass is written for; anything else is refused, not silently left out.
void CheckTrainable(const ModelConfig& config, const BuildOptions& options) {
  if (config.routed_experts > 0) {
    throw std::invalid_argument("--form train builds dense models only (not " + config.preset +
                                ")");
  }
  // The backward pass is written for the plain Llama layer; anything else would be silently
  // missing from the gradients.
  if (config.IsMla() || config.qkv_bias || config.o_bias || config.mlp_bias ||
      config.tie_embeddings || config.sliding_window > 0) {
    throw std::invalid_argument("--form train builds the plain Llama layer only (" + config.preset +
                                " has " + DescribeVariations(config).substr(2) + ")");
  }
  if (options.ops != OpSet::kStandard || options.attention != AttentionForm::kUnfused ||
      options.weights != WeightFormat::kPlain) {
    throw std::invalid_argument(
        "--form train builds standard ops only (--ops standard, --attention unfused, plain "
        "weights)");
  }
}

}  // namespace

onnx::ModelProto BuildTrainStep(const ModelConfig& config, const BuildOptions& options,
                                BuildStats* stats) {
  CheckTrainable(config, options);
  onnx::ModelProto model;
  Describe(&model, config, options);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name(config.preset + "-train");

  WeightStore weights(options.external_weights, options.weights_location, options.seed);
  GraphBuilder g(graph, &weights, config.dtype);
  DecoderContext ctx(config, options, g);
  TrainContext t(ctx);

  g.Input(ctx.input_ids, onnx::TensorProto_DataType_INT64, {"batch", "sequence"});
  g.Input(ctx.position_ids, onnx::TensorProto_DataType_INT64, {"batch", "sequence"});
  const std::string labels = "labels";
  g.Input(labels, onnx::TensorProto_DataType_INT64, {"batch", "sequence"});
  MakeRopeTables(ctx);
  MakeAttentionInputs(ctx);

  // Forward.
  const std::string table = "model.embed_tokens.weight";
  WeightStore* store = &g.weights();
  const int64_t table_count = config.vocab * config.hidden;
  g.Weight(table, {config.vocab, config.hidden},
           [store, table, table_count] { return store->Uniform(table, table_count, 1.0f); });
  std::string hidden =
      g.Op("Gather", {table, ctx.input_ids}, "/model/embed_tokens/Gather", {AttrInt("axis", 0)});
  std::vector<LayerStash> stashes(static_cast<size_t>(config.layers));
  for (int64_t layer = 0; layer < config.layers; ++layer) {
    hidden = TrainLayerForward(t, layer, hidden, &stashes[layer]);
  }
  const NormStash final_norm = TrainRmsNorm(t, hidden, "model.norm.weight", "/model/norm");
  const std::string logits =
      Linear(ctx, final_norm.out, config.hidden, config.vocab, "lm_head", "/lm_head/MatMul");
  const LossResult loss = CrossEntropy(t, logits, labels);
  g.Output(loss.loss, OnnxType(config.dtype), {});

  // Backward, last layer first.
  const std::string d_final = LinearBackward(t, final_norm.out, "lm_head.weight", config.hidden,
                                             config.vocab, loss.logits_grad, "/backward/lm_head");
  std::string d_hidden = RmsNormBackward(t, final_norm, d_final, "/backward/norm");
  for (int64_t layer = config.layers - 1; layer >= 0; --layer) {
    d_hidden = TrainLayerBackward(t, layer, stashes[layer], d_hidden);
  }
  EmbeddingBackward(t, table, d_hidden);

  // optimizer.step() after the whole backward, parameters in the order they were made.
  for (const ParamGrad& grad : t.grads) AdamStep(t, grad);

  RecordBuildStats(g, weights, stats);
  return model;
}

}  // namespace hyperplan::gen
