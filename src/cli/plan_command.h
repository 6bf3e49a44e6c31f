// `hyperplan plan`: plan a model's offloading, write the plan (and the rewritten ONNX model),
// print the summary, and gate on the budget and overhead targets (exit 0, 6 or 7).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace hyperplan::cli {

// Registers the subcommand; its callback throws Error with the gate's exit code on a miss,
// after every output has been written. With --summary-json, the summary line is printed on
// every exit, a failed one included.
void AddPlanCommand(CLI::App& app);

// For a command line CLI11 refused (exit 2): when it was `plan ... --summary-json`, prints the
// summary line of a run that failed with `message`, so a CI gate still finds it.
void PrintPlanSummaryForUsageError(const CLI::App& app, int argc, char** argv,
                                   const std::string& message);

}  // namespace hyperplan::cli
