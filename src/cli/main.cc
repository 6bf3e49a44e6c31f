// The hyperplan command line: parses flags, runs a subcommand, maps errors to exit codes.
//
// Thin by design: each subcommand's callback calls the pipeline; every failure arrives here
// as a hyperplan::Error (or a CLI11 parse error) and leaves as one line on stderr plus the
// documented exit code (README.md, "Exit codes"). Warnings (and, with -v, notes) go to
// stderr through spdlog; -q leaves only the error line.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <new>

#include "calibrate_command.h"
#include "exit_codes.h"
#include "fit_command.h"
#include "hyperplan/error.h"
#include "inspect_command.h"
#include "plan_command.h"
#include "profiles_command.h"
#include "run_command.h"
#include "simulate_command.h"
#include "verify_command.h"

namespace {

void PrintError(const std::string& message) {
  std::fprintf(stderr, "hyperplan: error: %s\n", message.c_str());
}

// CLI11 reports a missing or mistyped command as "a subcommand is required"; say which.
std::string DescribeParseError(const CLI::App& app, const CLI::ParseError& error, int argc,
                               char** argv) {
  std::string commands;
  bool known = false;
  for (const CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; })) {
    commands += (commands.empty() ? "" : ", ") + command->get_name();
    known = known || (argc > 1 && command->get_name() == argv[1]);
  }
  if (argc == 1) return "no command given (commands: " + commands + "; see --help)";
  if (argv[1][0] != '-' && !known) {
    return "unknown command '" + std::string(argv[1]) + "' (commands: " + commands + ")";
  }
  return error.what();
}

}  // namespace

int main(int argc, char** argv) {
  auto logger = spdlog::stderr_color_mt("hyperplan");
  logger->set_pattern("hyperplan: %l: %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::warn);  // -v / -q change it (verbosity.h)

  CLI::App app{"hyperplan: plan ahead of time how an LLM's tensors move between memory tiers"};
  app.set_version_flag("--version", std::string("hyperplan ") + HYPERPLAN_VERSION);
  app.require_subcommand(1);
  hyperplan::cli::AddInspectCommand(app);
  hyperplan::cli::AddPlanCommand(app);
  hyperplan::cli::AddFitCommand(app);
  hyperplan::cli::AddVerifyCommand(app);
  hyperplan::cli::AddSimulateCommand(app);
  hyperplan::cli::AddRunCommand(app);
  hyperplan::cli::AddCalibrateCommand(app);
  hyperplan::cli::AddProfilesCommand(app);
  const std::string footer = hyperplan::cli::ExitCodeTable() + "\n" + hyperplan::cli::ModelLimits();
  app.footer(footer);
  for (CLI::App* command : app.get_subcommands([](CLI::App*) { return true; })) {
    command->footer(footer);
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& help) {
    return app.exit(help);
  } catch (const CLI::CallForAllHelp& help) {
    return app.exit(help);
  } catch (const CLI::CallForVersion& version) {
    return app.exit(version);
  } catch (const CLI::ParseError& error) {
    const std::string message = DescribeParseError(app, error, argc, argv);
    hyperplan::cli::PrintPlanSummaryForUsageError(app, argc, argv, message);
    PrintError(message);
    return hyperplan::ExitCode(hyperplan::ErrorKind::kUsage);
  } catch (const hyperplan::Error& error) {
    PrintError(error.what());
    return hyperplan::ExitCode(error.kind());
  } catch (const std::bad_alloc&) {
    PrintError("out of memory");
    return hyperplan::ExitCode(hyperplan::ErrorKind::kInternal);
  } catch (const std::exception& error) {
    PrintError(std::string("internal error: ") + error.what());
    return hyperplan::ExitCode(hyperplan::ErrorKind::kInternal);
  }
  return 0;
}
