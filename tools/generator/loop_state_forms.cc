// Decode steps with exporter-named loop state (see loop_state_forms.h).
#include "loop_state_forms.h"

#include <fmt/format.h>

#include <stdexcept>

#include "graph_builder.h"
#include "weight_store.h"

namespace hyperplan::gen {
namespace {

constexpr int64_t kHidden = 8;
constexpr int64_t kHeads = 2;
constexpr int64_t kHeadDim = 4;
constexpr int64_t kVocab = 16;
constexpr int64_t kConvWidth = 3;  // LFM2's short convolution keeps the last 3 inputs
constexpr int32_t kFloat = onnx::TensorProto_DataType_FLOAT;

// A step's builder: names its nodes "<prefix>/<what>", weights "<prefix>.<what>".
struct Step {
  GraphBuilder& g;
  std::string prefix;

  std::string W(const std::string& what, const std::vector<int64_t>& dims) {
    const std::string name = prefix + "." + what;
    int64_t count = 1;
    for (int64_t d : dims) count *= d;
    return g.Weight(name, dims, [&] { return g.weights().Uniform(name, count, 0.3F); });
  }
  std::string Op(const std::string& op, const std::vector<std::string>& in, const std::string& what,
                 std::vector<onnx::AttributeProto> attrs = {}, const std::string& output = {}) {
    return g.Op(op, in, prefix + "/" + what, std::move(attrs), output);
  }
  // x [B, 1, hidden] -> [B, heads, 1, head_dim]
  std::string Heads(const std::string& x, const std::string& what) {
    const std::string projected = Op("MatMul", {x, W(what, {kHidden, kHidden})}, what + "/MatMul");
    const std::string split =
        Op("Reshape", {projected, g.Int64s({0, 0, kHeads, kHeadDim})}, what + "/Reshape");
    return Op("Transpose", {split}, what + "/Transpose", {AttrInts("perm", {0, 2, 1, 3})});
  }
  // [B, heads, 1, head_dim] -> [B, 1, hidden] through the output projection, plus `residual`.
  std::string Merge(const std::string& heads, const std::string& residual,
                    const std::string& what) {
    const std::string swapped =
        Op("Transpose", {heads}, what + "/Transpose", {AttrInts("perm", {0, 2, 1, 3})});
    const std::string joined =
        Op("Reshape", {swapped, g.Int64s({0, 0, kHidden})}, what + "/Reshape");
    const std::string projected =
        Op("MatMul", {joined, W(what + "_out", {kHidden, kHidden})}, what + "/MatMul");
    return Op("Add", {projected, residual}, what + "/Add");
  }
  // softmax(q k^T) v over the cache rows.
  std::string Attend(const std::string& q, const std::string& k, const std::string& v,
                     const std::string& what) {
    const std::string kt = Op("Transpose", {k}, what + "/KT", {AttrInts("perm", {0, 1, 3, 2})});
    const std::string scores = Op("MatMul", {q, kt}, what + "/Scores");
    const std::string probs = Op("Softmax", {scores}, what + "/Softmax", {AttrInt("axis", -1)});
    return Op("MatMul", {probs, v}, what + "/Context");
  }
};

using Dims = std::vector<Dim>;

// Self attention over a growing cache: past (input) ++ this token's K/V = present (output).
std::string SelfAttention(Step& s, const std::string& x, const std::string& past_k,
                          const std::string& past_v, const std::string& present_k,
                          const std::string& present_v, const std::string& past_dim) {
  const Dims past_dims{"batch_size", kHeads, past_dim, kHeadDim};
  const Dims present_dims{"batch_size", kHeads, past_dim + " + 1", kHeadDim};
  s.g.Input(past_k, kFloat, past_dims);
  s.g.Input(past_v, kFloat, past_dims);
  const std::string keys = s.Op("Concat", {past_k, s.Heads(x, "self_k")}, "self_k/Concat",
                                {AttrInt("axis", 2)}, present_k);
  const std::string values = s.Op("Concat", {past_v, s.Heads(x, "self_v")}, "self_v/Concat",
                                  {AttrInt("axis", 2)}, present_v);
  s.g.Output(present_k, kFloat, present_dims);
  s.g.Output(present_v, kFloat, present_dims);
  return s.Merge(s.Attend(s.Heads(x, "self_q"), keys, values, "self"), x, "self");
}

// Cross attention over the encoder's K/V: inputs read every step, no present.
std::string CrossAttention(Step& s, const std::string& x, const std::string& cross_k,
                           const std::string& cross_v, const std::string& encoder_dim) {
  const Dims dims{"batch_size", kHeads, encoder_dim, kHeadDim};
  s.g.Input(cross_k, kFloat, dims);
  s.g.Input(cross_v, kFloat, dims);
  return s.Merge(s.Attend(s.Heads(x, "cross_q"), cross_k, cross_v, "cross"), x, "cross");
}

// LFM2's short conv: the state keeps the last kConvWidth inputs per channel [B, hidden, 3];
// the output is their weighted sum.
std::string ShortConv(Step& s, const std::string& x, const std::string& past,
                      const std::string& present) {
  const Dims dims{"batch_size", kHidden, kConvWidth};
  s.g.Input(past, kFloat, dims);
  const std::string kept = s.Op(
      "Slice", {past, s.g.Int64s({1}), s.g.Int64s({kConvWidth}), s.g.Int64s({2})}, "conv/Slice");
  const std::string column =
      s.Op("Transpose", {x}, "conv/Transpose", {AttrInts("perm", {0, 2, 1})});
  const std::string state =
      s.Op("Concat", {kept, column}, "conv/Concat", {AttrInt("axis", 2)}, present);
  s.g.Output(present, kFloat, dims);
  const std::string weighted = s.Op("Mul", {state, s.W("conv", {kHidden, kConvWidth})}, "conv/Mul");
  const std::string summed =
      s.Op("ReduceSum", {weighted, s.g.Int64s({2})}, "conv/ReduceSum", {AttrInt("keepdims", 0)});
  const std::string row = s.Op("Unsqueeze", {summed, s.g.Int64s({1})}, "conv/Unsqueeze");
  return s.Op("Add", {row, x}, "conv/Add");
}

// Linear attention (Qwen3.5's gated delta rule without its gates): state += k^T v; out = q state.
std::string LinearAttention(Step& s, const std::string& x, const std::string& past,
                            const std::string& present) {
  const Dims dims{"batch_size", kHeads, kHeadDim, kHeadDim};
  s.g.Input(past, kFloat, dims);
  const std::string kt =
      s.Op("Transpose", {s.Heads(x, "k")}, "linear/KT", {AttrInts("perm", {0, 1, 3, 2})});
  const std::string outer = s.Op("MatMul", {kt, s.Heads(x, "v")}, "linear/Outer");
  const std::string state = s.Op("Add", {past, outer}, "linear/Update", {}, present);
  s.g.Output(present, kFloat, dims);
  return s.Merge(s.Op("MatMul", {s.Heads(x, "q"), state}, "linear/Read"), x, "linear");
}

std::string Embed(GraphBuilder& g) {
  g.Input("input_ids", onnx::TensorProto_DataType_INT64, {"batch_size", 1});
  Step s{g, "embed"};
  return s.Op("Gather", {s.W("tokens", {kVocab, kHidden}), "input_ids"}, "Gather");
}

void LmHead(GraphBuilder& g, const std::string& x) {
  Step s{g, "lm_head"};
  s.Op("MatMul", {x, s.W("weight", {kHidden, kVocab})}, "MatMul", {}, "logits");
  g.Output("logits", kFloat, {"batch_size", 1, kVocab});
}

void BuildWhisper(GraphBuilder& g, bool optimum_names) {
  std::string x = Embed(g);
  for (int layer = 0; layer < 2; ++layer) {
    Step s{g, fmt::format("layers.{}", layer)};
    const auto name = [&](const char* optimum, const char* ort, const char* kv) {
      return optimum_names ? fmt::format(fmt::runtime(optimum), layer, kv)
                           : fmt::format(fmt::runtime(ort), kv, layer);
    };
    x = SelfAttention(s, x, name("past_key_values.{}.decoder.{}", "past_{}_self_{}", "key"),
                      name("past_key_values.{}.decoder.{}", "past_{}_self_{}", "value"),
                      name("present.{}.decoder.{}", "present_{}_self_{}", "key"),
                      name("present.{}.decoder.{}", "present_{}_self_{}", "value"),
                      optimum_names ? "past_decoder_sequence_length" : "past_sequence_length");
    x = CrossAttention(s, x, name("past_key_values.{}.encoder.{}", "past_{}_cross_{}", "key"),
                       name("past_key_values.{}.encoder.{}", "past_{}_cross_{}", "value"),
                       optimum_names ? "encoder_sequence_length_out" : "encoder_sequence_length");
  }
  LmHead(g, x);
}

void BuildHybrid(GraphBuilder& g) {
  std::string x = Embed(g);
  Step conv{g, "layers.0"};
  x = ShortConv(conv, x, "past_conv.0", "present_conv.0");
  Step attention{g, "layers.1"};
  x = SelfAttention(attention, x, "past_key_values.1.key", "past_key_values.1.value",
                    "present.1.key", "present.1.value", "past_sequence_length");
  Step linear{g, "layers.2"};
  x = LinearAttention(linear, x, "past_recurrent.2", "present_recurrent.2");
  LmHead(g, x);
}

}  // namespace

const std::vector<std::string>& LoopStateFormNames() {
  static const std::vector<std::string> names = {"whisper-optimum", "whisper-ort", "hybrid"};
  return names;
}

onnx::ModelProto BuildLoopStateForm(const std::string& name, uint64_t seed) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("hyperplan-gen");
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(17);
  model.set_doc_string(name + ": a decode step with exporter-named loop state (stand-in)");
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name(name);
  WeightStore weights(/*external=*/false, "", seed);
  GraphBuilder builder(graph, &weights, ElemType::kFloat32);
  if (name == "whisper-optimum" || name == "whisper-ort") {
    BuildWhisper(builder, name == "whisper-optimum");
  } else if (name == "hybrid") {
    BuildHybrid(builder);
  } else {
    throw std::invalid_argument("--loop-form: unknown form '" + name + "'");
  }
  return model;
}

}  // namespace hyperplan::gen
