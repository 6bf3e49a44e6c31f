// Verbosity flags shared by the subcommands (see verbosity.h).
#include "verbosity.h"

#include <spdlog/spdlog.h>

#include <cstdint>

namespace hyperplan::cli {
namespace {

bool quiet_requested = false;

}  // namespace

void AddVerbosityFlags(CLI::App& command) {
  CLI::Option* quiet = command.add_flag_function(
      "-q,--quiet",
      [](std::int64_t) {
        quiet_requested = true;
        spdlog::set_level(spdlog::level::err);
      },
      "only errors on stderr: no warnings, no progress line");
  CLI::Option* verbose = command.add_flag_function(
      "-v,--verbose",
      [](std::int64_t count) {
        spdlog::set_level(count >= 2 ? spdlog::level::debug : spdlog::level::info);
      },
      "also notes on stderr (what was inferred or decided for you, stage times); -vv: debug");
  quiet->excludes(verbose);
}

bool QuietRequested() { return quiet_requested; }

void LogDiagnostics(const std::string& source, const std::vector<std::string>& warnings,
                    const std::vector<std::string>& notes) {
  for (const std::string& warning : warnings) spdlog::warn("{}: {}", source, warning);
  for (const std::string& note : notes) spdlog::info("{}: {}", source, note);
}

}  // namespace hyperplan::cli
