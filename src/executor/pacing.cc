// Pacing (see pacing.h).
#include "executor/pacing.h"

#include <sys/prctl.h>

#include <thread>

#include "hyperplan/cost.h"
#include "hyperplan/plan/whole_link.h"

namespace hyperplan::executor {

int64_t PlannedDurationNs(const Plan& plan, const HardwareProfile& profile, int32_t step) {
  const PlanStep& planned = plan.steps[step];
  switch (planned.kind) {
    case StepKind::kCompute:
      return plan.node_time_ns[planned.node];
    case StepKind::kPrefetch:
    case StepKind::kStore:
      // A routed hop holding its whole link moves at the link's bandwidth (whole_link.h).
      return HoldsWholeLink(profile, planned)
                 ? TransferTimeNs(profile.links[planned.link], planned.bytes)
                 : ChannelTransferTimeNs(profile.links[planned.link], planned.bytes);
    case StepKind::kDetach:
      return 0;
  }
  return 0;
}

void TightenSleeps() { prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL); }

void HoldStream(Clock::time_point start, int64_t planned_ns, double time_scale) {
  const auto hold =
      std::chrono::nanoseconds(static_cast<int64_t>(static_cast<double>(planned_ns) * time_scale));
  std::this_thread::sleep_until(start + hold);
}

}  // namespace hyperplan::executor
