// `hyperplan plan`: plan a model's offloading, write the plan (and the rewritten ONNX model),
// print the summary, and gate on the budget and overhead targets (exit 0, 6 or 7).
#pragma once

#include <CLI/CLI.hpp>

namespace hyperplan::cli {

// Registers the subcommand; its callback throws Error with the gate's exit code on a miss,
// after every output has been written.
void AddPlanCommand(CLI::App& app);

}  // namespace hyperplan::cli
