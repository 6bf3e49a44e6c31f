// -q/--quiet and -v/--verbose: how much every subcommand says on stderr besides errors.
//
// Default: warnings (a --dim naming no dimension, values of unknown size, ...). -q: errors
// only (no warnings, no progress line). -v: also notes (what the importer decided for you,
// such as an inferred dim winning over a declared symbol; stage times). -vv: debug detail.
// Errors are always printed, once, by main. The level is spdlog's (the default logger writes
// "hyperplan: warning: ..." lines to stderr), set when the flags are parsed.
// Cost: none. Limits: one level per process (there is one subcommand per run).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace hyperplan::cli {

// Adds -q/--quiet and -v/--verbose (repeatable) to `command`; they exclude each other.
void AddVerbosityFlags(CLI::App& command);

// True after -q: the progress line stays off too.
bool QuietRequested();

// Logs each of `warnings` at warning level and each of `notes` at info level, prefixed with
// `source` (the file they are about).
void LogDiagnostics(const std::string& source, const std::vector<std::string>& warnings,
                    const std::vector<std::string>& notes);

}  // namespace hyperplan::cli
