// A tiny decoder with a KV cache, for the contenders that move attention or whole layers to the
// host (llama.cpp -ngl, FlexGen's CPU attention): `layers` layers of four nodes each,
//   proj_i(h_i, model.layers.i.self_attn.qkv_proj.weight) -> q_i
//   core_i(q_i, past_key_values.i.key) -> c_i, present.i.key   (the KV append)
//   out_i(c_i, model.layers.i.self_attn.o_proj.weight) -> a_i
//   mlp_i(a_i, model.layers.i.mlp.down_proj.weight) -> h_{i+1}
// planned as a loop (present.i.key becomes the next step's past_key_values.i.key, the ort-genai
// convention), so each core writes its layer's cache in place. Bytes: activations 64 B,
// weights 1024 B, each cache 512 B (present as large as past: an overwrite). Given node times:
// 100 ns each.
#pragma once

#include <string>
#include <vector>

#include "hyperplan/loop.h"
#include "support/tiny_graph.h"

namespace hyperplan::contenders_test {

inline constexpr int64_t kKvNodeNs = 100;
inline constexpr int64_t kKvActivationBytes = 64;
inline constexpr int64_t kKvWeightBytes = 1024;
inline constexpr int64_t kKvCacheBytes = 512;

struct KvDecoder {
  Graph graph;
  std::vector<int64_t> times;  // by NodeId
  LoopSpec loop;
};

inline ValueId KvCache(Graph& graph, const std::string& name, bool input) {
  const ValueId id = input ? testing::Input(graph, name, kKvCacheBytes)
                           : testing::Bytes(graph, name, kKvCacheBytes);
  if (!input) testing::MarkOutput(graph, id);
  graph.values[id].value_class = ValueClass::kKvCache;
  return id;
}

inline KvDecoder MakeKvDecoder(int layers) {
  KvDecoder d;
  Graph& g = d.graph;
  ValueId h = testing::Input(g, "h0", kKvActivationBytes);
  for (int i = 0; i < layers; ++i) {
    const std::string n = std::to_string(i);
    const std::string layer = "model.layers." + n;
    const ValueId past = KvCache(g, "past_key_values." + n + ".key", true);
    const ValueId present = KvCache(g, "present." + n + ".key", false);
    const ValueId q = testing::Bytes(g, "q" + n, kKvActivationBytes);
    const ValueId c = testing::Bytes(g, "c" + n, kKvActivationBytes);
    const ValueId a = testing::Bytes(g, "a" + n, kKvActivationBytes);
    const ValueId next = testing::Bytes(g, "h" + std::to_string(i + 1), kKvActivationBytes);
    testing::Op(g, "proj" + n, "Work",
                {h, testing::Weight(g, layer + ".self_attn.qkv_proj.weight", kKvWeightBytes)}, {q});
    testing::Op(g, "core" + n, "Work", {q, past}, {c, present});
    testing::Op(g, "out" + n, "Work",
                {c, testing::Weight(g, layer + ".self_attn.o_proj.weight", kKvWeightBytes)}, {a});
    testing::Op(g, "mlp" + n, "Work",
                {a, testing::Weight(g, layer + ".mlp.down_proj.weight", kKvWeightBytes)}, {next});
    h = next;
  }
  testing::MarkOutput(g, h);
  d.times.assign(g.nodes.size(), kKvNodeNs);
  d.loop = {true, FindAliases(g, {})};
  return d;
}

}  // namespace hyperplan::contenders_test
