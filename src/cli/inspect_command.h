// `hyperplan inspect`: what a model needs from the device with nothing offloaded.
#pragma once

#include <CLI/CLI.hpp>

namespace hyperplan::cli {

// Registers the subcommand; its callback prints the report (text, or JSON with --json).
void AddInspectCommand(CLI::App& app);

}  // namespace hyperplan::cli
