// Printable names for a plan's tier, value and node ids: one formatter per kind, shared by
// the summary, the verifier, the wait check and the report.
//
// Tolerant of ids outside the profile or graph ("?"), so that a message about a malformed
// plan still prints and shows where it is wrong. Cost: O(1) each, plus the name's copy.
#pragma once

#include <string>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"

namespace hyperplan {

// The tier's name ("hbm", "ddr", ...), or "?".
std::string TierName(const HardwareProfile& profile, TierId tier);

// The value's name, unquoted, or "?" (charts, traces and tables).
std::string ValueName(const Graph& graph, ValueId value);

// The value's name in single quotes, or "?" unquoted (messages and the summary's prose).
std::string QuotedValueName(const Graph& graph, ValueId value);

// The value's class ("weight", "kv_cache", ...), or "?".
std::string ValueClassText(const Graph& graph, ValueId value);

// The node's name and its op type, or "?".
std::string NodeName(const Graph& graph, NodeId node);
std::string NodeOpType(const Graph& graph, NodeId node);

}  // namespace hyperplan
