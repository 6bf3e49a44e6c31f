// The exit-code table and the model limits, as `--help` prints them (README.md holds the same
// table under "Exit codes" and the limits under "Limits").
//
// One table for every subcommand and for hyperplan-gen; tests/cli checks that the README's
// table and this one agree line for line, so the two cannot drift.
#pragma once

#include <string>

namespace hyperplan::cli {

std::string ExitCodeTable();

// The model structure limits (onnx/model_structure.h), for the same footer.
std::string ModelLimits();

}  // namespace hyperplan::cli
