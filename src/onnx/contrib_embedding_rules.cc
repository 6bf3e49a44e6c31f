// Shape rules for ONNX Runtime's embedding lookups: EmbedLayerNormalization (the transformer
// optimizer's fused word + position (+ segment) embedding and layer norm) and
// GatherBlockQuantized (a gather from a block-quantized table, dequantized on the way out).
//
// Written from ONNX Runtime's ContribOperators.md. Cost: constant per node.
#include <string>
#include <vector>

#include "onnx/shape_rule_helpers.h"
#include "onnx/shape_rules.h"

namespace hyperplan::onnx_import {
namespace {

constexpr char kMicrosoft[] = "com.microsoft";

// input_ids (B, S), segment_ids, word_embedding (V, D), position_embedding (P, D), ...
// output (B, S, D) in word_embedding's type; mask_index (B) in input_ids' type (int32);
// embedding_sum (output 2, the sum before the norm) (B, S, D) in word_embedding's type.
void InferEmbedLayerNormalization(onnx::InferenceContext& ctx) {
  const int32_t type = InputElemType(ctx, 2);
  const int32_t ids_type = InputElemType(ctx, 0);
  const onnx::TensorShapeProto* ids = InputShapeOfRank(ctx, 0, 2);
  const onnx::TensorShapeProto* table = InputShapeOfRank(ctx, 2, 2);
  if (ids == nullptr || table == nullptr) {
    SetOutputElemType(ctx, 0, type);
    SetOutputElemType(ctx, 1, ids_type);
    SetOutputElemType(ctx, 2, type);
    return;
  }
  const std::vector<Dim> embedded = {ids->dim(0), ids->dim(1), table->dim(1)};
  SetOutput(ctx, 0, type, embedded);
  SetOutput(ctx, 1, ids_type, {ids->dim(0)});
  SetOutput(ctx, 2, type, embedded);
}

// data (..., K) quantized, in blocks of block_size along quantize_axis; indices of any shape;
// scales in the output type. output: data's shape with the gather_axis replaced by indices'
// shape; a uint8 table packs 8 / bits elements per byte along its last axis, so that axis
// unpacks to that many times its bytes.
void InferGatherBlockQuantized(onnx::InferenceContext& ctx) {
  const int32_t type = InputElemType(ctx, 2);
  const onnx::TensorShapeProto* data = InputShape(ctx, 0);
  const onnx::TensorShapeProto* indices = InputShape(ctx, 1);
  if (data == nullptr || indices == nullptr || data->dim_size() == 0) {
    SetOutputElemType(ctx, 0, type);
    return;
  }
  const int64_t rank = data->dim_size();
  const std::optional<int64_t> gather_axis = AxisAttribute(ctx, "gather_axis", 0, rank);
  if (!gather_axis) return;
  std::vector<Dim> dims(data->dim().begin(), data->dim().end());
  const int64_t bits = IntAttribute(ctx, "bits", 4);
  if (InputElemType(ctx, 0) == onnx::TensorProto::UINT8 && bits > 0 && bits < 8) {
    dims.back() = MultiplyDim(dims.back(), 8 / bits);
  }
  dims.erase(dims.begin() + *gather_axis);
  dims.insert(dims.begin() + *gather_axis, indices->dim().begin(), indices->dim().end());
  SetOutput(ctx, 0, type, dims);
}

}  // namespace

std::vector<ShapeRule> ContribEmbeddingShapeRules() {
  return {
      {kMicrosoft, "EmbedLayerNormalization", 1, InferEmbedLayerNormalization},
      {kMicrosoft, "GatherBlockQuantized", 1, InferGatherBlockQuantized},
  };
}

}  // namespace hyperplan::onnx_import
