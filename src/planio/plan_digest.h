// The plan's digest (plan_sha256): what the plan says, whatever the paths were spelled.
//
// SHA-256 of the plan's deterministic binary encoding with the two fields that record how
// files were named cleared: provenance.model_path and provenance.profile.source. Everything
// the plan depends on stays covered: the model's bytes (provenance.model_sha256), the bound
// dims, the profile's content (tiers, links, compute, class rules), the options and every
// decision. So `plan models/x.onnx` and `plan /abs/path/models/x.onnx` give one digest, and the
// paths stay in the plan file as information. Cost: one copy and one encoding of the plan.
#pragma once

#include <string>

#include "schemas/plan.pb.h"

namespace hyperplan::planio {

std::string PlanSha256(const plan::v1::Plan& plan);

}  // namespace hyperplan::planio
