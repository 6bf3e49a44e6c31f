// The exit-code table, as `--help` prints it (README.md, "Exit codes", holds the same table).
//
// One table for every subcommand and for hyperplan-gen; tests/cli checks that the README's
// table and this one agree line for line, so the two cannot drift.
#pragma once

#include <string>

namespace hyperplan::cli {

std::string ExitCodeTable();

}  // namespace hyperplan::cli
