// The machine-readable inspect report: schemas/inspect.proto through protobuf's JSON mapping,
// so field names and layout are fixed by the schema, not by hand-written printing.
#pragma once

#include <string>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/inspect.h"

namespace hyperplan::cli {

std::string FormatInspectJson(const std::string& model_path, const Graph& graph,
                              const HardwareProfile& profile, const InspectReport& report);

}  // namespace hyperplan::cli
