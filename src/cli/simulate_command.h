// `hyperplan simulate`: replays a plan on a hardware profile (--hw, else the one recorded in the
// plan) and reports the new makespan and stalls (compute times re-estimated for that profile,
// transfers at its links').
#pragma once

#include <CLI/CLI.hpp>

namespace hyperplan::cli {

void AddSimulateCommand(CLI::App& app);

}  // namespace hyperplan::cli
