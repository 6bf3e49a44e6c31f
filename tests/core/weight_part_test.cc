// WeightPartOfName (layers.h): the one classifier of weight names into parts, at the edges
// where the host parts' and the host placement's two classifiers used to disagree.
#include <catch2/catch.hpp>

#include "hyperplan/layers.h"

using namespace hyperplan;

TEST_CASE("weight part: Hugging Face names of a layer's MLP, attention and norms") {
  CHECK(WeightPartOfName("model.layers.3.mlp.up_proj.weight") == WeightPart::kLayerMlp);
  CHECK(WeightPartOfName("model.layers.3.self_attn.q_proj.weight") == WeightPart::kLayerAttention);
  CHECK(WeightPartOfName("model.layers.3.input_layernorm.weight") == WeightPart::kLayerOther);
  CHECK(WeightPartOfName("model.layers.3.post_attention_layernorm.weight") ==
        WeightPart::kLayerOther);
  // A Qwen3 q_norm sits inside the attention module: part of the attention.
  CHECK(WeightPartOfName("model.layers.3.self_attn.q_norm.weight") == WeightPart::kLayerAttention);
}

TEST_CASE("weight part: '.ffn' is the MLP, 'ffn_norm' is the norm before it") {
  // Meta's names: feed_forward.w1 is the MLP; ffn_norm and attention_norm are norms (the host
  // parts' old ".ffn" token took ffn_norm into the MLP; the placement's ".ffn." did not).
  CHECK(WeightPartOfName("layers.0.feed_forward.w1.weight") == WeightPart::kLayerMlp);
  CHECK(WeightPartOfName("layers.0.ffn_norm.weight") == WeightPart::kLayerOther);
  CHECK(WeightPartOfName("layers.0.attention_norm.weight") == WeightPart::kLayerOther);
  CHECK(WeightPartOfName("layers.0.attention.wq.weight") == WeightPart::kLayerAttention);
  // GGUF-style module names: ffn_up is the MLP, attn_q the attention, attn_norm a norm.
  CHECK(WeightPartOfName("model.layers.5.ffn_up.weight") == WeightPart::kLayerMlp);
  CHECK(WeightPartOfName("model.layers.5.ffn.down.weight") == WeightPart::kLayerMlp);
  CHECK(WeightPartOfName("model.layers.5.attn_q.weight") == WeightPart::kLayerAttention);
  CHECK(WeightPartOfName("model.layers.5.attn_norm.weight") == WeightPart::kLayerOther);
}

TEST_CASE("weight part: experts belong to their layer's MLP whatever the module") {
  CHECK(WeightPartOfName("model.layers.7.mlp.experts.5.up_proj.weight") == WeightPart::kLayerMlp);
  CHECK(WeightPartOfName("model.layers.7.block_sparse_moe.experts.0.w1.weight") ==
        WeightPart::kLayerMlp);
  // ".experts." under a module the lists do not name (the placement's old token; the host
  // parts' list lacked it).
  CHECK(WeightPartOfName("model.layers.7.sparse.experts.0.w1.weight") == WeightPart::kLayerMlp);
  CHECK(WeightPartOfName("model.layers.7.mlp.gate.weight") == WeightPart::kLayerMlp);
}

TEST_CASE("weight part: LM heads and embeddings outside layers") {
  CHECK(WeightPartOfName("lm_head.weight") == WeightPart::kLmHead);
  // GPT-NeoX's embed_out and Meta's output.weight are LM heads (the host parts did not know
  // them); only the whole name "output.weight", not a layer's "o_proj.output.weight".
  CHECK(WeightPartOfName("embed_out.weight") == WeightPart::kLmHead);
  CHECK(WeightPartOfName("output.weight") == WeightPart::kLmHead);
  CHECK(WeightPartOfName("attn.output.weight") == WeightPart::kNone);
  CHECK(WeightPartOfName("model.embed_tokens.weight") == WeightPart::kEmbedding);
  CHECK(WeightPartOfName("transformer.wte.weight") == WeightPart::kEmbedding);
  CHECK(WeightPartOfName("tok_embeddings.weight") == WeightPart::kEmbedding);
  CHECK(WeightPartOfName("gpt_neox.embed_in.weight") == WeightPart::kEmbedding);
  // The final norm, the rotary tables, a generator's scalar constant: no part.
  CHECK(WeightPartOfName("model.norm.weight") == WeightPart::kNone);
  CHECK(WeightPartOfName("cos_cache") == WeightPart::kNone);
  CHECK(WeightPartOfName("const.float.0.9#3f666666") == WeightPart::kNone);
}

TEST_CASE("weight part: a layer's number only after a separator, as LayerOfWeight") {
  // "sublayers.2." is not "layers.2.": no layer, no part.
  CHECK(LayerOfWeight("sublayers.2.mlp.w") == -1);
  CHECK(WeightPartOfName("sublayers.2.mlp.w") == WeightPart::kNone);
  CHECK(LayerOfWeight("model/layers.12/mlp.w") == -1);  // "12/" is not "12."
  CHECK(LayerOfWeight("a/layers.12.mlp.w") == 12);
  CHECK(WeightPartOfName("a/layers.12.mlp.w") == WeightPart::kLayerMlp);
}
