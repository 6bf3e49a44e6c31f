// The core's enums and their schemas/plan.proto counterparts, both ways.
//
// The proto enums start at an UNSPECIFIED zero (proto3 requires it); the core's start at their
// first real value. Converting a proto value back returns nullopt for UNSPECIFIED and for
// values this build does not know (a newer minor's addition), so the reader can name the field.
#pragma once

#include <optional>

#include "hyperplan/graph.h"
#include "hyperplan/plan/plan.h"
#include "schemas/plan.pb.h"

namespace hyperplan::planio {

namespace pb = ::hyperplan::plan::v1;

pb::StepKind ToProto(StepKind kind);
pb::ValueClass ToProto(ValueClass value_class);
pb::DecisionReason ToProto(DecisionReason reason);

std::optional<StepKind> FromProto(pb::StepKind kind);
std::optional<ValueClass> FromProto(pb::ValueClass value_class);
std::optional<DecisionReason> FromProto(pb::DecisionReason reason);

}  // namespace hyperplan::planio
