// `hyperplan profiles`: the hardware profiles compiled into the binary (configs/*.yaml), each
// with its one-line description, its memory tiers and the sources its figures cite, so a user
// can pick one for `--hw NAME` without opening the YAML.
#pragma once

#include <CLI/CLI.hpp>

namespace hyperplan::cli {

void AddProfilesCommand(CLI::App& app);

}  // namespace hyperplan::cli
