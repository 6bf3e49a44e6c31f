// How the verifier's checks name a step in their messages: "step 4 (prefetch 'W' ddr->hbm)",
// "step 2 (compute 'n1')"; "?" for an id out of range (values and tiers through names.h).
// Cost: O(1) per name. Limits: messages only; nothing parses them.
#pragma once

#include <cstdint>
#include <string>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/names.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan {

std::string DescribeStep(const Graph& graph, const HardwareProfile& profile, const Plan& plan,
                         int32_t index);

}  // namespace hyperplan
