// `hyperplan verify`: re-checks a plan made elsewhere or edited by hand against its model.
#pragma once

#include <CLI/CLI.hpp>

namespace hyperplan::cli {

// Registers the subcommand: exit 0 and one line when every check holds; else exit 8 and one
// line naming the step and the rule it breaks.
void AddVerifyCommand(CLI::App& app);

}  // namespace hyperplan::cli
