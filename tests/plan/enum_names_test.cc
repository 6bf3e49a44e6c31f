// The plan's enums print themselves: a failing Catch2 check on a StepKind, DecisionReason,
// ValueClass, ErrorKind or DType reads "prefetch == store", not "{?} == {?}"; the names are the
// plan file's and the reports' spelling, one per enumerator, and a byte outside the enum prints
// "?".
#include <catch2/catch.hpp>
#include <set>
#include <sstream>
#include <string>

#include "hyperplan/dtype.h"
#include "hyperplan/error.h"
#include "hyperplan/graph.h"
#include "hyperplan/plan/plan.h"

using namespace hyperplan;

namespace {

template <typename Enum>
std::string Printed(Enum value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

}  // namespace

TEST_CASE("plan enums print their names, as Catch2 shows them in a failed check") {
  CHECK(Printed(StepKind::kPrefetch) == "prefetch");
  CHECK(Printed(DecisionReason::kStallOverLimit) == "stall_over_limit");
  CHECK(Printed(ValueClass::kKvCache) == "kv_cache");
  CHECK(Catch::Detail::stringify(StepKind::kDetach) == "detach");
  CHECK(Catch::Detail::stringify(DecisionReason::kNoIdleGap) == "no_idle_gap");
  CHECK(Catch::Detail::stringify(ValueClass::kOptimizerState) == "optimizer_state");
  // And the core's: an error's kind (the word RunSummary.error_kind carries), an element type.
  CHECK(Catch::Detail::stringify(ErrorKind::kPlanFile) == "plan_file");
  CHECK(Catch::Detail::stringify(ErrorKind::kViolation) == "violation");
  CHECK(Catch::Detail::stringify(DType::kBFloat16) == "bfloat16");
}

TEST_CASE("every enumerator has a name of its own; a value outside the enum prints ?") {
  std::set<std::string> step_kinds;
  for (int k = 0; k < kStepKindCount; ++k) step_kinds.insert(Printed(static_cast<StepKind>(k)));
  CHECK(step_kinds == std::set<std::string>{"compute", "prefetch", "store", "detach"});
  std::set<std::string> reasons;
  for (int r = 0; r < kDecisionReasonCount; ++r) {
    reasons.insert(Printed(static_cast<DecisionReason>(r)));
  }
  CHECK(reasons.size() == static_cast<size_t>(kDecisionReasonCount));
  CHECK(reasons.count("?") == 0);
  CHECK(Printed(static_cast<StepKind>(kStepKindCount)) == "?");
  CHECK(Printed(static_cast<DecisionReason>(kDecisionReasonCount)) == "?");
}
