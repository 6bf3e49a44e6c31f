// A placement contender's plan (issue 30): the problem with some nodes on the host
// (PlaceUnits), the device side planned by the planner at the budget (PlanOffload), so that
// only the placement differs from hyperplan's. llama.cpp's -ot and -ngl rules, FlexGen's CPU
// attention and ZeRO-Offload's CPU optimizer step share it.
// Cost: one PlaceUnits and one planning. Limits: the model's order, as every contender keeps.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "contenders/context.h"
#include "hyperplan/planner/planner.h"

namespace hyperplan::contenders {

// What a placement contender returns.
struct PlacementResult {
  bool built = false;   // false: the placement cannot be made or does not fit (see `note`)
  int host_pieces = 0;  // layers, attention cores or optimizer updates on the host
  int pieces = 0;       // of how many eligible
  std::string note;     // what was placed, or why not built
  PlanResult result;
};

// By NodeId: the host for `host_nodes`, the device for the rest.
std::vector<ComputeUnit> HostUnitsFor(const Graph& graph, const std::vector<NodeId>& host_nodes);

// PlanOffload on `context` placed by `units` with the device side's options
// (DeviceSideOptions, context.h), produced_by set. Throws like PlanOffload.
PlanResult PlanPlacement(const ContenderContext& context, std::vector<ComputeUnit> units,
                         int64_t budget_bytes, const std::string& produced_by);

}  // namespace hyperplan::contenders
