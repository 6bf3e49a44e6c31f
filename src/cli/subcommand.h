// One way to declare a subcommand: its flags live in a struct the command's callback owns (so
// they outlive AddXCommand and are filled when CLI11 parses), and `run` gets them once parsing
// is done. Cost: none. Limits: one flags struct per subcommand.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

namespace hyperplan::cli {

template <typename Flags>
struct Subcommand {
  CLI::App* command;  // owned by the app: add the command's options to it
  Flags* flags;       // owned by the callback: the options' targets
};

// Adds `name` to `app`, running `run(flags)` after its options are parsed.
template <typename Flags>
Subcommand<Flags> AddSubcommand(CLI::App& app, const std::string& name,
                                const std::string& description, void (*run)(const Flags&)) {
  auto flags = std::make_shared<Flags>();
  CLI::App* command = app.add_subcommand(name, description);
  command->callback([flags, run] { run(*flags); });
  return {command, flags.get()};
}

}  // namespace hyperplan::cli
