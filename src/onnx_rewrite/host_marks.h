// Host marks: which nodes of a rewritten model the plan runs on the host's CPUs (issue 30), in
// forms a runtime reads without the plan.
//
// - Model metadata: "hyperplan.host_nodes", a JSON array of the host nodes' names in step order
//   (the plan's names, which every rewritten node carries), and "hyperplan.host_tier", the
//   tier their inputs and outputs live on (HostLane.memory_tier's name). Absent when nothing
//   runs on the host.
// - Per node: NodeProto.metadata_props {"layer_ann": "hyperplan_host"}, the annotation ONNX
//   Runtime's layer assignment reads (session option "session.layer_assignment_settings" =
//   "cpu(=hyperplan_host)" places exactly those nodes on the CPU execution provider; ORT PRs
//   #27595 and #27972, 2026). metadata_props on a node is field 9 of NodeProto from ONNX 1.16
//   (IR 10); the ONNX 1.12 this builds against has no such field, so it is written as that
//   field's bytes (a protobuf unknown field, kept by every parser, read as metadata_props by
//   newer ones) and the IR version stays as it was, which the 1.12 checker accepts.
// Cost: O(host nodes). Limits: a node that already has a "layer_ann" keeps it and gets a
// second one (keys should be distinct); the rewrite never annotates device nodes.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

#include "schemas/plan.pb.h"

namespace hyperplan::onnx_rewrite {

inline constexpr const char* kHostNodesMetadata = "hyperplan.host_nodes";
inline constexpr const char* kHostTierMetadata = "hyperplan.host_tier";
inline constexpr const char* kLayerAnnotationKey = "layer_ann";
inline constexpr const char* kHostAnnotation = "hyperplan_host";
inline constexpr int kNodeMetadataPropsField = 9;  // NodeProto.metadata_props, ONNX >= 1.16

// Adds {"layer_ann": "hyperplan_host"} to the node's metadata_props (field 9).
void MarkHostNode(onnx::NodeProto& node);

// The node's "layer_ann" from metadata_props (field 9, known or not to this ONNX), or "".
std::string LayerAnnotation(const onnx::NodeProto& node);

// `names` as a JSON array of strings: ["a","b\"c"].
std::string JsonStringArray(const std::vector<std::string>& names);

// "hyperplan.host_nodes" and "hyperplan.host_tier" for a plan with host compute steps.
void AddHostMetadata(const plan::v1::Plan& plan, onnx::ModelProto& model);

}  // namespace hyperplan::onnx_rewrite
