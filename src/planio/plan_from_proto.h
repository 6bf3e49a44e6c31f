// A plan file back to a core Plan and its recorded evaluation (EvaluatedPlan), for the model and
// profile it is checked or replayed on.
//
// Nodes and values are resolved by name against the imported graph, tiers and links by name
// through a ProfileMapping, so the plan can be re-checked (verify) or replayed on another
// profile (simulate). Every index is range-checked: a hand-edited plan that points nowhere is
// Error(kPlanFile, "<plan>: <field>: ...") naming the field, never undefined behaviour.
// Cost: linear in the plan plus hashing the names. Limits: the per-tier memory curves of the
// timeline are not in the file (SimulationResult::bytes_per_tier comes back empty; a replay
// recomputes them).
#pragma once

#include <string>

#include "hyperplan/adapters/onnx_import.h"
#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/plan.h"
#include "planio/profile_proto.h"
#include "schemas/plan.pb.h"

namespace hyperplan::planio {

// Error(kPlanFile) unless `model_sha256` (of the file at `model_path`) is the one the plan
// was made for.
void CheckModelDigest(const plan::v1::Plan& plan, const std::string& plan_path,
                      const std::string& model_path, const std::string& model_sha256);

// The import options the plan was made with: its bound dims, its --class rules, then the
// recorded profile's class rules.
ImportOptions ImportOptionsFromProto(const plan::v1::Plan& plan, const std::string& plan_path);

struct FromProtoOptions {
  // Replaying on a profile whose link has fewer channels: channel c runs on c mod channels
  // (FIFO order per channel is kept). Off: such a plan is Error(kProfile).
  bool fold_channels = false;
};

// The plan's decisions, and beside them its recorded evaluation (timeline, fit, summary, cold
// start) as the file states it: a replay (plan_check.h) tells whether it is the plan's.
EvaluatedPlan PlanFromProto(const plan::v1::Plan& plan, const std::string& plan_path,
                            const Graph& graph, const HardwareProfile& profile,
                            const ProfileMapping& mapping, const FromProtoOptions& options = {});

}  // namespace hyperplan::planio
