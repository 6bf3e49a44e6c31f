// Names the report prints for a plan's ids, tolerant of ids outside the graph or profile
// ("?"), so that a report of a malformed plan still renders and shows where it is wrong. The
// names of tiers, values and nodes are the core's (hyperplan/names.h); a block's is the
// report's own. Cost: O(1) each.
#pragma once

#include <string>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/names.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan::report {

// A resident block's name: its value, or "body scratch of <node>".
std::string BlockName(const Graph& graph, ValueId value, NodeId scratch_node);

}  // namespace hyperplan::report
