#include "decoder.h"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>
#include <vector>

#include "attention.h"
#include "attention_inputs.h"
#include "decoder_context.h"
#include "graph_builder.h"
#include "linear.h"
#include "mlp.h"
#include "moe.h"
#include "norm.h"
#include "rope.h"
#include "weight_store.h"

namespace hyperplan::gen {

namespace {

constexpr int64_t kIrVersion = 8;
constexpr int64_t kOnnxOpset = 17;

// The caches of one layer: key and value [batch, kv_heads, length, head_dim], or MLA's one
// row per token [batch, 1, length, kv_lora_rank + rope] under "key".
std::vector<const char*> CacheKinds(const ModelConfig& c) {
  if (c.IsMla()) return {"key"};
  return {"key", "value"};
}

std::vector<Dim> CacheDims(const ModelConfig& c, const char* length) {
  if (c.IsMla()) return {"batch", int64_t{1}, length, c.mla.kv_lora_rank + c.mla.qk_rope_head_dim};
  return {"batch", c.kv_heads, length, c.head_dim};
}

// The shared buffer's length: past and present alike, so that a plan sees one buffer.
constexpr const char* kSharedLength = "max_length";

void DeclareInputs(DecoderContext& ctx) {
  GraphBuilder& g = ctx.graph;
  const ModelConfig& c = ctx.config;
  g.Input(ctx.input_ids, onnx::TensorProto_DataType_INT64, {"batch", "sequence"});
  g.Input(ctx.position_ids, onnx::TensorProto_DataType_INT64, {"batch", "sequence"});
  if (!ctx.decode()) return;
  const char* past_length = ctx.shared_kv() ? kSharedLength : "past_sequence";
  for (int64_t layer = 0; layer < c.layers; ++layer) {
    for (const char* kind : CacheKinds(c)) {
      g.Input(PastName(layer, kind), ctx.kv_onnx_type(), CacheDims(c, past_length));
    }
  }
  if (!ctx.shared_kv()) return;
  // The buffer's length says nothing of the sequence's, so the caller passes it.
  g.Input(kSeqlensK, onnx::TensorProto_DataType_INT32, {"batch"});
  g.Input(kTotalSequenceLength, onnx::TensorProto_DataType_INT32, {});
}

void DeclareOutputs(DecoderContext& ctx) {
  GraphBuilder& g = ctx.graph;
  const ModelConfig& c = ctx.config;
  const Dim positions =
      ctx.options.last_logits_only ? Dim(int64_t{1}) : Dim(std::string("sequence"));
  g.Output("logits", OnnxType(c.dtype), {"batch", positions, c.vocab});
  const char* cache_length = ctx.shared_kv() ? kSharedLength
                             : ctx.decode()  ? "total_sequence"
                                             : "sequence";
  for (int64_t layer = 0; layer < c.layers; ++layer) {
    for (const char* kind : CacheKinds(c)) {
      g.Output(PresentName(layer, kind), ctx.kv_onnx_type(), CacheDims(c, cache_length));
    }
  }
}

// Tied (plain or fp8 LM head): the one table, stored [hidden, vocab] like every projection ([in,
// out]) so that the LM head is a plain MatMul; the embedding gathers its columns. MatMulNBits needs
// a packed LM head of its own.
bool SharesTable(const DecoderContext& ctx) {
  return ctx.config.tie_embeddings && !ctx.nbits_weights();
}

std::string Embed(DecoderContext& ctx) {
  GraphBuilder& g = ctx.graph;
  const ModelConfig& c = ctx.config;
  WeightStore* store = &g.weights();
  const std::string name = "model.embed_tokens.weight";
  const int64_t count = c.vocab * c.hidden;
  if (SharesTable(ctx)) {
    const std::string table =
        g.Weight(name, {c.hidden, c.vocab}, [=] { return store->Uniform(name, count, 1.0f); });
    // [hidden, batch, sequence] -> [batch, sequence, hidden]: a copy of the tokens' rows only.
    const std::string columns =
        g.Op("Gather", {table, ctx.input_ids}, "/model/embed_tokens/Gather", {AttrInt("axis", 1)});
    return g.Op("Transpose", {columns}, "/model/embed_tokens/Transpose",
                {AttrInts("perm", {1, 2, 0})});
  }
  const std::string table =
      g.Weight(name, {c.vocab, c.hidden}, [=] { return store->Uniform(name, count, 1.0f); });
  return g.Op("Gather", {table, ctx.input_ids}, "/model/embed_tokens/Gather", {AttrInt("axis", 0)});
}

// Prefill and decode as runtimes run them: only the last position's hidden state
// ([batch, 1, hidden]) reaches the LM head, the largest projection of a small model.
std::string LastPosition(DecoderContext& ctx, const std::string& final_norm) {
  if (!ctx.options.last_logits_only) return final_norm;
  GraphBuilder& g = ctx.graph;
  return g.Op(
      "Slice",
      {final_norm, g.Int64s({-1}), g.Int64s({std::numeric_limits<int64_t>::max()}), g.Int64s({1})},
      "/model/last_position/Slice");
}

void LmHead(DecoderContext& ctx, const std::string& final_norm) {
  const ModelConfig& c = ctx.config;
  const std::string hidden = LastPosition(ctx, final_norm);
  if (SharesTable(ctx)) {
    ctx.graph.Op("MatMul", {hidden, "model.embed_tokens.weight"}, "/lm_head/MatMul", {}, "logits");
    return;
  }
  Linear(ctx, hidden, c.hidden, c.vocab, "lm_head", std::string("/lm_head") + ProjectionOp(ctx),
         "logits");
}

std::string FeedForward(DecoderContext& ctx, int64_t layer, const std::string& x) {
  if (ctx.config.IsMoeLayer(layer)) return MoeBlock(ctx, layer, x);
  return SwiGlu(ctx, x, ctx.config.intermediate, fmt::format("model.layers.{}.mlp", layer),
                fmt::format("/model/layers.{}/mlp", layer));
}

// Standard ops: explicit RMSNorm and residual Adds. Returns the final norm's output.
std::string StandardLayers(DecoderContext& ctx, std::string hidden) {
  GraphBuilder& g = ctx.graph;
  for (int64_t layer = 0; layer < ctx.config.layers; ++layer) {
    const std::string p = fmt::format("/model/layers.{}", layer);
    const std::string w = fmt::format("model.layers.{}", layer);
    const std::string attn_in =
        RmsNorm(ctx, hidden, w + ".input_layernorm.weight", p + "/input_layernorm");
    hidden = g.Op("Add", {hidden, Attention(ctx, layer, attn_in)}, p + "/attn_residual/Add");
    const std::string mlp_in = RmsNorm(ctx, hidden, w + ".post_attention_layernorm.weight",
                                       p + "/post_attention_layernorm");
    hidden = g.Op("Add", {hidden, FeedForward(ctx, layer, mlp_in)}, p + "/mlp_residual/Add");
  }
  return RmsNorm(ctx, hidden, "model.norm.weight", "/model/norm");
}

// Contrib ops: each norm after the first also adds the residual (SkipSimplifiedLayerNormalization
// output 3 carries the running sum), as onnxruntime-genai writes Llama.
std::string ContribLayers(DecoderContext& ctx, const std::string& embeddings) {
  std::string residual = embeddings;
  std::string normed =
      SimplifiedLayerNorm(ctx, embeddings, "model.layers.0.input_layernorm.weight",
                          "/model/layers.0/input_layernorm/SimplifiedLayerNormalization");
  for (int64_t layer = 0; layer < ctx.config.layers; ++layer) {
    const std::string p = fmt::format("/model/layers.{}", layer);
    const std::string w = fmt::format("model.layers.{}", layer);
    const std::string attn = Attention(ctx, layer, normed);
    SkipNormResult post =
        SkipSimplifiedLayerNorm(ctx, attn, residual, w + ".post_attention_layernorm.weight",
                                p + "/post_attention_layernorm/SkipSimplifiedLayerNormalization");
    const std::string mlp = FeedForward(ctx, layer, post.normed);
    const bool last = layer + 1 == ctx.config.layers;
    const std::string next_weight =
        last ? std::string("model.norm.weight")
             : fmt::format("model.layers.{}.input_layernorm.weight", layer + 1);
    const std::string next_name =
        last ? std::string("/model/norm/SkipSimplifiedLayerNormalization")
             : fmt::format("/model/layers.{}/input_layernorm/SkipSimplifiedLayerNormalization",
                           layer + 1);
    SkipNormResult next = SkipSimplifiedLayerNorm(ctx, mlp, post.residual, next_weight, next_name);
    normed = next.normed;
    residual = next.residual;
  }
  return normed;
}

std::string AttentionName(const ModelConfig& c, const BuildOptions& o) {
  if (c.IsMla()) return "latent";
  return o.attention == AttentionForm::kFused ? "fused" : "unfused";
}

// The attention and weight format `ops` used to imply before they were flags of their own:
// standard ops were unfused with plain weights, contrib ops fused with int4 weights.
AttentionForm ImpliedAttention(const BuildOptions& o) {
  return o.ops == OpSet::kContrib ? AttentionForm::kFused : AttentionForm::kUnfused;
}
WeightFormat ImpliedWeights(const BuildOptions& o) {
  return o.ops == OpSet::kContrib ? WeightFormat::kInt4 : WeightFormat::kPlain;
}

// What departs from the form `ops` implies: only that is described, so models of the earlier
// forms stay byte-identical.
std::string DescribeForm(const ModelConfig& c, const BuildOptions& o) {
  std::string text;
  if (o.attention != ImpliedAttention(o)) text += ", " + AttentionName(c, o) + " attention";
  if (o.weights != ImpliedWeights(o))
    text += fmt::format(", {} weights", WeightFormatName(o.weights));
  if (o.last_logits_only) text += ", last-position logits";
  if (c.routed_experts > 0 && o.moe_form != MoeForm::kDense)
    text += o.moe_form == MoeForm::kOrt ? ", MoE experts as com.microsoft MoE"
                                        : ", MoE experts gathered by index";
  return text;
}

bool UsesMsDomain(const ModelConfig& c, const BuildOptions& o) {
  const bool fused = o.attention == AttentionForm::kFused && !c.IsMla();
  const bool nbits = o.weights == WeightFormat::kInt4 || o.weights == WeightFormat::kInt8;
  const bool moe_op = c.routed_experts > 0 && o.moe_form == MoeForm::kOrt;
  return o.ops == OpSet::kContrib || fused || nbits || moe_op;
}

void Describe(onnx::ModelProto* model, const ModelConfig& c, const BuildOptions& o) {
  model->set_ir_version(kIrVersion);
  model->set_producer_name("hyperplan-gen");
  model->set_producer_version("0.1.0");
  auto* onnx_opset = model->add_opset_import();
  onnx_opset->set_domain("");
  onnx_opset->set_version(kOnnxOpset);
  if (UsesMsDomain(c, o)) {
    auto* ms_opset = model->add_opset_import();
    ms_opset->set_domain(kMsDomain);
    ms_opset->set_version(1);
  }
  const std::string form = o.form == Form::kDecode ? "decode" : "prefill";
  const std::string ops = o.ops == OpSet::kContrib ? "contrib" : "standard";
  model->set_doc_string(fmt::format(
      "{} {} ({} ops{}): {} layers, hidden {}, {} heads / {} kv heads of {}, intermediate {}, "
      "vocab {}, {}{}{}{}",
      c.preset, form, ops, DescribeForm(c, o), c.layers, c.hidden, c.heads, c.kv_heads, c.head_dim,
      c.intermediate, c.vocab, ElemTypeName(c.dtype),
      c.routed_experts > 0
          ? fmt::format(
                ", {} routed experts (top {}) of width {} + {} shared, first {} layers dense",
                c.routed_experts, c.experts_per_token, c.moe_intermediate, c.shared_experts,
                c.first_dense_layers)
          : std::string(),
      DescribeVariations(c), c.note.empty() ? std::string() : ". " + c.note));
  auto meta = [model](const std::string& key, const std::string& value) {
    auto* entry = model->add_metadata_props();
    entry->set_key(key);
    entry->set_value(value);
  };
  meta("hyperplan.preset", c.preset);
  meta("hyperplan.form", form);
  meta("hyperplan.ops", ops);
  // Written only where they depart from the form `ops` implies (see DescribeForm).
  if (o.attention != ImpliedAttention(o)) meta("hyperplan.attention", AttentionName(c, o));
  if (o.weights != ImpliedWeights(o)) meta("hyperplan.weights", WeightFormatName(o.weights));
  if (o.last_logits_only) meta("hyperplan.logits", "last");
  if (o.kv_cache != KvCache::kModelType)
    meta("hyperplan.kv_dtype", o.kv_cache == KvCache::kInt8 ? "int8" : "fp8");
  if (o.kv_cache != KvCache::kModelType && o.kv_scales == KvScales::kPerChannel)
    meta("hyperplan.kv_scales", "channel");
  if (o.shared_kv_buffer) meta("hyperplan.kv_layout", "shared");
  meta("hyperplan.seed", std::to_string(o.seed));
  // The context window, for `hyperplan fit` to stop a context search at (cli/fit_window.h).
  meta("hyperplan.max_position_embeddings", std::to_string(c.max_positions));
  if (!c.source.empty()) meta("hyperplan.source", c.source);
}

}  // namespace

onnx::ModelProto BuildDecoder(const ModelConfig& config, const BuildOptions& options,
                              BuildStats* stats) {
  if (config.IsMla() && options.ops == OpSet::kContrib) {
    throw std::invalid_argument(
        "--ops contrib: ONNX Runtime has no contrib op for multi-head latent attention; use "
        "--ops standard");
  }
  onnx::ModelProto model;
  Describe(&model, config, options);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name(config.preset);

  WeightStore weights(options.external_weights, options.weights_location, options.seed);
  GraphBuilder builder(graph, &weights, config.dtype);
  DecoderContext ctx(config, options, builder);

  DeclareInputs(ctx);
  MakeRopeTables(ctx);
  MakeAttentionInputs(ctx);
  const std::string embeddings = Embed(ctx);
  const std::string final_norm =
      ctx.contrib_norms() ? ContribLayers(ctx, embeddings) : StandardLayers(ctx, embeddings);
  LmHead(ctx, final_norm);
  DeclareOutputs(ctx);

  RecordBuildStats(builder, weights, stats);
  return model;
}

}  // namespace hyperplan::gen
