// The no-offload baseline (see no_offload.h).
#include "baselines/no_offload.h"

#include "baselines/plan_builder.h"
#include "baselines/residency_rules.h"
#include "baselines/steady_state.h"

namespace hyperplan::baselines {

Plan NoOffloadPlan(const BaselineContext& context) {
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

}  // namespace hyperplan::baselines
