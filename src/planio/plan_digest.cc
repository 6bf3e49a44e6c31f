// The plan's digest over its content (see plan_digest.h).
#include "planio/plan_digest.h"

#include "planio/plan_file.h"
#include "planio/sha256.h"

namespace hyperplan::planio {

std::string PlanSha256(const plan::v1::Plan& plan) {
  plan::v1::Plan content = plan;
  content.mutable_provenance()->clear_model_path();
  content.mutable_provenance()->mutable_profile()->clear_source();
  return Sha256Hex(EncodeBinary(content));
}

}  // namespace hyperplan::planio
