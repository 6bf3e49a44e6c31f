// Model binding: whether a model file is one a plan holds for, at the dims it was made for.
//
// A plan holds for one model at one set of bound dims. `verify` and `simulate` take the model
// either as the original (its sha256 is the plan's record) or as the model hyperplan rewrote
// from this very plan (its metadata names the plan's sha256 and the original's), and refuse
// it at other dims: dims given with --dim, dims in a rewritten model's metadata
// ("hyperplan.dim.<name>"), and the concrete dims of its graph inputs (--emit-onnx-static
// writes them) must all be the plan's. Each refusal is one line naming the dim (or the input
// and axis), the plan's value and the model's. Dims are checked before digests, so a model
// rewritten for other dims is told so rather than only "another plan".
// Cost: reading the model's protobuf once (the caller does so only when the model's digest is
// not the plan's record, i.e. when it may be a rewritten model).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "schemas/plan.pb.h"

namespace hyperplan::onnx_rewrite {

// What a model file says about the plan it belongs to.
struct ModelBinding {
  bool rewritten = false;    // its metadata names a plan (hyperplan.plan_sha256)
  std::string plan_sha256;   // metadata, when rewritten
  std::string model_sha256;  // metadata: the original model's digest, when rewritten
  std::map<std::string, int64_t, std::less<>> dims;  // metadata "hyperplan.dim.<name>"
  struct Input {
    std::string name;
    std::vector<int64_t> dims;  // -1 where the model leaves the dim symbolic or unknown
  };
  std::vector<Input> inputs;  // graph inputs with a tensor shape
};

// Error(kInputFile) when unreadable, Error(kModel) when not a model or a dim in its metadata
// is not a non-negative integer.
ModelBinding ReadModelBinding(const std::string& model_path);

struct BindingCheck {
  std::string plan_path;
  std::string plan_sha256;  // of the plan's binary encoding
  std::string model_path;
};

// Error(kPlanFile) unless every dim in `dims` (--dim: the dims the model runs at) is one the
// plan binds, to the same value.
void CheckRunDims(const plan::v1::Plan& plan, const std::string& plan_path,
                  const std::map<std::string, int64_t, std::less<>>& dims);

// Error(kPlanFile) unless the rewritten model `binding` holds for this plan: its dims (metadata
// and concrete input shapes) are the plan's, and it names this plan's and this plan's model's
// digests.
void CheckRewrittenModel(const plan::v1::Plan& plan, const BindingCheck& check,
                         const ModelBinding& binding);

}  // namespace hyperplan::onnx_rewrite
