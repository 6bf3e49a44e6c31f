// The no-offload baseline (see no_offload.h).
#include "contenders/no_offload.h"

#include "contenders/plan_builder.h"
#include "contenders/residency_rules.h"
#include "contenders/steady_state.h"

namespace hyperplan::contenders {

EvaluatedPlan NoOffloadPlan(const ContenderContext& context) {
  PlanBuilder builder(context);
  OpenOwnedAtStart(context, builder, [](ValueId) { return true; });
  for (Step k = 0; k < context.step_count(); ++k) {
    builder.Compute(k);
    ReleaseAfterLastUse(context, builder, k);
  }
  PlanBuilder::FinishOptions options;
  options.offload_enabled = false;
  return builder.Finish(options);
}

}  // namespace hyperplan::contenders
