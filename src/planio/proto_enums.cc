// Core enums <-> proto enums (see proto_enums.h). The proto values are the core's plus one,
// which static_asserts pin so that a reordering on either side fails to compile.
#include "planio/proto_enums.h"

namespace hyperplan::planio {
namespace {

static_assert(pb::STEP_KIND_COMPUTE == static_cast<int>(StepKind::kCompute) + 1);
static_assert(pb::STEP_KIND_DETACH == static_cast<int>(StepKind::kDetach) + 1);
static_assert(pb::StepKind_MAX == kStepKindCount);
static_assert(pb::VALUE_CLASS_WEIGHT == static_cast<int>(ValueClass::kWeight) + 1);
static_assert(pb::VALUE_CLASS_OPTIMIZER_STATE == static_cast<int>(ValueClass::kOptimizerState) + 1);
static_assert(pb::ValueClass_MAX == kValueClassCount);
static_assert(pb::DECISION_REASON_OFFLOADED == static_cast<int>(DecisionReason::kOffloaded) + 1);
static_assert(pb::DECISION_REASON_STORE_TOO_LATE ==
              static_cast<int>(DecisionReason::kStoreTooLate) + 1);
static_assert(pb::DecisionReason_MAX == kDecisionReasonCount);

// The core value for proto value `code`, when 1 <= code <= count.
template <typename Core>
std::optional<Core> Shifted(int code, int count) {
  if (code < 1 || code > count) return std::nullopt;
  return static_cast<Core>(code - 1);
}

}  // namespace

pb::StepKind ToProto(StepKind kind) {
  return static_cast<pb::StepKind>(static_cast<int>(kind) + 1);
}

pb::ValueClass ToProto(ValueClass value_class) {
  return static_cast<pb::ValueClass>(static_cast<int>(value_class) + 1);
}

pb::DecisionReason ToProto(DecisionReason reason) {
  return static_cast<pb::DecisionReason>(static_cast<int>(reason) + 1);
}

std::optional<StepKind> FromProto(pb::StepKind kind) {
  return Shifted<StepKind>(kind, kStepKindCount);
}

std::optional<ValueClass> FromProto(pb::ValueClass value_class) {
  return Shifted<ValueClass>(value_class, kValueClassCount);
}

std::optional<DecisionReason> FromProto(pb::DecisionReason reason) {
  return Shifted<DecisionReason>(reason, kDecisionReasonCount);
}

}  // namespace hyperplan::planio
