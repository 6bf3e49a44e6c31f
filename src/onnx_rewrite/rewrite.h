// RewriteModel: the model with the plan's cache operators as explicit nodes.
//
// Nodes appear in the plan's step order: each compute step is the model's own node, each
// Prefetch, Store and Detach a node of domain ai.hyperplan (op types Prefetch, Store, Detach)
// with attributes src_tier, dst_tier (not Detach), stream, step (the index into the plan's
// steps), waits_for and bytes. Data flow follows the copies: a Prefetch reads the copy on its
// source tier (the Store's output, or the initializer for a weight homed off the device) and
// every compute node that runs while the prefetched copy is resident reads the Prefetch's
// output. Each cache op is a model-local function with an Identity body (cache_functions.h),
// so stock runtimes compute exactly what the original model computes. Each compute node is
// named as the plan names it (a node the model left unnamed, or named twice, gets the name
// the importer made for it: "<op_type>_<position>"), so a runtime matches plan nodes to model
// nodes by name. Metadata (metadata_props) records the tool version, the plan's sha256, the
// source model's sha256, the profile's name and every bound dim as "hyperplan.dim.<name>";
// with `static_shapes`, every graph input and output also gets the plan's concrete shape
// (each dim the plan knows replaces a symbolic one), so the model states the one shape the
// plan holds for. External-data references
// still name the same weights file (external_data.h); weight bytes are never read. The result
// passes ONNX's checker (model_check.h) before it is returned.
// Cost: reading and writing the model plus O(nodes + steps) hash lookups.
// Limits: only the main graph is rewritten: a control-flow body that captures a prefetched
// value from the outer scope keeps reading the original name (the same data in stock runtimes,
// but a custom runtime sees no explicit edge for it).
#pragma once

#include <cstdint>
#include <string>

#include "onnx_rewrite/model_check.h"
#include "schemas/plan.pb.h"

namespace hyperplan::onnx_rewrite {

struct RewriteOptions {
  std::string model_path;   // the model the plan was made for (read; its weights are not)
  std::string output_path;  // where the caller will write the result (for relative locations)
  std::string plan_sha256;  // of the plan's binary encoding
  std::string tool_version;
  bool static_shapes = false;  // --emit-onnx-static: graph inputs and outputs at the bound dims
};

struct RewriteResult {
  std::string model_bytes;  // deterministic serialisation
  int64_t cache_nodes = 0;
  int64_t external_tensors = 0;
  CheckReport check;  // what ONNX's checker could not check by schema
};

// Error(kPlanFile) when the plan's nodes are not the model's, Error(kModel) when the model was
// already rewritten, Error(kUsage) when the output cannot reach the external weights,
// Error(kInternal) when the result fails ONNX's checker.
RewriteResult RewriteModel(const plan::v1::Plan& plan, const RewriteOptions& options);

}  // namespace hyperplan::onnx_rewrite
