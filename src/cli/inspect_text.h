// The human-readable inspect report: one screen, the numbers a person fitting a model asks
// for first (what dominates memory, where the peak is, whether it fits). With dims unbound
// (Graph::unbound_dims), what is known without them: counts, the bytes of values sized
// without them, the op types, and every dim to bind with the values whose sizes it decides.
#pragma once

#include <string>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/inspect.h"

namespace hyperplan::cli {

std::string FormatInspectText(const std::string& model_path, const Graph& graph,
                              const HardwareProfile& profile, const InspectReport& report);

}  // namespace hyperplan::cli
