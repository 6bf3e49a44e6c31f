// Names the report prints for a plan's ids, tolerant of ids outside the graph or profile
// ("?"), so that a report of a malformed plan still renders and shows where it is wrong.
// Cost: O(1) each.
#pragma once

#include <string>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan::report {

std::string TierName(const HardwareProfile& profile, TierId tier);
std::string ValueName(const Graph& graph, ValueId value);  // the name, unquoted
std::string ValueClassText(const Graph& graph, ValueId value);
std::string NodeName(const Graph& graph, NodeId node);
std::string NodeOpType(const Graph& graph, NodeId node);
// A resident block's name: its value, or "body scratch of <node>".
std::string BlockName(const Graph& graph, ValueId value, NodeId scratch_node);

}  // namespace hyperplan::report
