// `plan --node-times FILE`: ONNX Runtime's profiling JSON as the node times to plan with.
//
// Reads the profile (median kernel time per node over the runs it holds, ort_profile.h),
// matches it to the model's nodes by name (node_times.h) and reports how many matched in the
// text summary and in --summary-json. Nodes without a measurement keep the roofline estimate.
// A profile that matches no node of the model is refused (exit 3): it was made for another
// model, or after ONNX Runtime renamed every node.
#pragma once

#include <optional>
#include <string>

#include "hyperplan/adapters/ort_profile.h"
#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/node_times.h"
#include "schemas/plan.pb.h"

namespace hyperplan::cli {

struct NodeTimesInput {
  std::string path;
  MeasuredNodeTimes measured;
  NodeTimeMatch match;
};

// nullopt when `path` is empty (no --node-times).
std::optional<NodeTimesInput> LoadNodeTimes(const std::string& path, const Graph& graph,
                                            const HardwareProfile& profile);

// "  node times: 3 of 264 nodes measured in FILE (median of 3 runs); 261 keep the roofline
// estimate; ..." with a trailing newline.
std::string NodeTimesSummaryLine(const NodeTimesInput& input);

void AddNodeTimes(const NodeTimesInput& input, plan::v1::RunSummary* summary);

}  // namespace hyperplan::cli
