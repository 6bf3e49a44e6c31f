// Shape-rule helpers: reading inputs and writing outputs of an ONNX InferenceContext, and
// arithmetic on dims that may be symbolic.
//
// hyperplan's own shape rules (contrib and post-1.12 operators) are written against these so
// that each rule reads like its operator's spec. Absent or untyped inputs read as "unknown"
// rather than throwing: a rule sets what it can and leaves the rest unknown, which the importer
// then reports. Symbolic dims combine into expression text ("past_sequence + sequence") so an
// unbound symbol can still be named later. Cost: constant per call.
#pragma once

#include <onnx/defs/shape_inference.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace hyperplan::onnx_import {

using Dim = onnx::TensorShapeProto::Dimension;

// A dim with a known value.
Dim KnownDim(int64_t value);
bool IsKnown(const Dim& dim);

// Sum, product and exact quotient; symbolic operands make expression text, an inexact or
// unknown operand makes an unknown dim.
Dim AddDims(const Dim& left, const Dim& right);
Dim MultiplyDim(const Dim& dim, int64_t factor);
Dim DivideDim(const Dim& dim, int64_t divisor);
// The larger of two known dims; unknown unless both are known.
Dim MaxDim(const Dim& left, const Dim& right);

// Whether input `index` is present (not omitted) in the node.
bool HasInput(onnx::InferenceContext& ctx, size_t index);
// The input's shape, or nullptr when the input is absent or its shape is unknown.
const onnx::TensorShapeProto* InputShape(onnx::InferenceContext& ctx, size_t index);
// The input's shape when it has exactly `rank` dims, else nullptr.
const onnx::TensorShapeProto* InputShapeOfRank(onnx::InferenceContext& ctx, size_t index, int rank);
// The input's tensor element type code, or 0 when unknown.
int32_t InputElemType(onnx::InferenceContext& ctx, size_t index);
// The value of a scalar (or one-element) integer input that is a constant or was computed by
// data propagation; nullopt otherwise.
std::optional<int64_t> ConstantScalarInput(onnx::InferenceContext& ctx, size_t index);
// An int attribute, or `fallback` when absent.
int64_t IntAttribute(onnx::InferenceContext& ctx, const char* name, int64_t fallback);
// The axis attribute `name` (default `fallback`) as an index into a tensor of rank `rank`
// (a negative axis counts from the end); nullopt when it lies outside.
std::optional<int64_t> AxisAttribute(onnx::InferenceContext& ctx, const char* name,
                                     int64_t fallback, int64_t rank);
// An ints attribute; empty when absent.
std::vector<int64_t> IntsAttribute(onnx::InferenceContext& ctx, const char* name);

bool HasOutput(onnx::InferenceContext& ctx, size_t index);
// Sets output `index` to a tensor of `elem_type` (0: leave unset) and the given dims; a no-op
// when the node has no such output.
void SetOutput(onnx::InferenceContext& ctx, size_t index, int32_t elem_type,
               const std::vector<Dim>& dims);
// Sets only the element type of output `index` (0: leave unset); its shape stays unknown.
void SetOutputElemType(onnx::InferenceContext& ctx, size_t index, int32_t elem_type);
// Output `index` gets input `input`'s element type and shape, as far as they are known.
void CopyInputToOutput(onnx::InferenceContext& ctx, size_t input, size_t index);
// Input 0's shape with every axis from `axis` (negative counts from the end) set to 1.
std::optional<std::vector<Dim>> ReducedShape(onnx::InferenceContext& ctx, int64_t axis);

}  // namespace hyperplan::onnx_import
