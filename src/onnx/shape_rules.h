// Shape rules: hyperplan's type and shape inference for operators ONNX 1.12 does not know.
//
// Two families, in files by operator family: ONNX Runtime's com.microsoft operators that LLM
// exports use (GroupQueryAttention, MultiHeadAttention, MatMulNBits, the fused layer norms,
// RotaryEmbedding, ...; the other fused attentions in contrib_attention_rules.cc, the embedding
// lookups in contrib_embedding_rules.cc), and ai.onnx operators from opsets 18 to 24 (Attention,
// RMSNormalization, RotaryEmbedding, Split with num_outputs, Reduce* with axes as an input,
// ...). A rule is either an inference function written from the operator's spec, or a pointer
// to an existing ONNX 1.12 schema whose inference already matches (ReduceMean-18 infers like
// ReduceSum-13). The SchemaRegistry turns the rules into schemas. Cost: building the lists
// once per process.
#pragma once

#include <onnx/defs/schema.h>

#include <string>
#include <vector>

namespace hyperplan::onnx_import {

struct ShapeRule {
  std::string domain;  // "" for ai.onnx
  std::string op_type;
  int since_version = 1;
  onnx::InferenceFunction infer;            // set, or
  const onnx::OpSchema* same_as = nullptr;  // an ONNX schema whose inference applies as is
};

std::vector<ShapeRule> ContribShapeRules();
std::vector<ShapeRule> ContribAttentionShapeRules();  // contrib_attention_rules.cc
std::vector<ShapeRule> ContribEmbeddingShapeRules();  // contrib_embedding_rules.cc
std::vector<ShapeRule> NewOnnxShapeRules();

}  // namespace hyperplan::onnx_import
