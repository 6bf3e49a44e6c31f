// The cache operators' definitions: model-local ONNX functions in domain ai.hyperplan.
//
// Prefetch, Store and Detach each take one tensor and return one, with an Identity body, so
// any runtime that knows nothing of hyperplan inlines them and computes exactly what the
// original model computes, while a runtime that does know them sees each transfer as a node
// with its tier, stream and plan step. Functions need IR version 8 or later.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>

namespace hyperplan::onnx_rewrite {

inline constexpr const char* kCacheDomain = "ai.hyperplan";
inline constexpr int64_t kCacheOpsetVersion = 1;
inline constexpr int64_t kFunctionsMinIrVersion = 8;

// Attribute names: every cache node carries these (Detach has no dst_tier).
inline constexpr const char* kSrcTierAttribute = "src_tier";
inline constexpr const char* kDstTierAttribute = "dst_tier";
inline constexpr const char* kStreamAttribute = "stream";
inline constexpr const char* kStepAttribute = "step";
inline constexpr const char* kWaitsForAttribute = "waits_for";
inline constexpr const char* kBytesAttribute = "bytes";
// A routed Prefetch (fetch-after-route, plan.proto Step.routed_by) also carries: the tensor
// whose top k per row picks the experts it moves (the MoE node's router_probs input) and the
// bytes its block reserves (the worst routing). Declared only in models that have one.
inline constexpr const char* kRouterAttribute = "router";
inline constexpr const char* kReservedBytesAttribute = "reserved_bytes";
// A later chunk of a chunked Prefetch (schemas/plan.proto Step field 20) carries this too: its
// bytes start there in the value. Its input is the chunk before it's output (the device copy
// it completes), so a runtime that ignores memory reads one Identity chain.
inline constexpr const char* kChunkOffsetAttribute = "chunk_offset_bytes";

// metadata_props of a rewritten model: "hyperplan.plan_sha256", "hyperplan.model_sha256", and
// one "hyperplan.dim.<name>" per bound dim (its value in decimal).
inline constexpr const char* kPlanDigestMetadata = "hyperplan.plan_sha256";
inline constexpr const char* kModelDigestMetadata = "hyperplan.model_sha256";
inline constexpr const char* kDimMetadataPrefix = "hyperplan.dim.";

// Adds the three functions to `model`; `onnx_opset` is the default-domain opset their
// Identity bodies import (the model's own, so the checker sees compatible imports). `routed`:
// Prefetch also declares the routed attributes. Prefetch and Store declare
// kChunkOffsetAttribute only when `chunked` (a plan with a chunked Prefetch). Either flag off
// leaves every other rewritten model byte for byte what it was.
void AddCacheFunctions(onnx::ModelProto& model, int64_t onnx_opset, bool routed, bool chunked);

}  // namespace hyperplan::onnx_rewrite
