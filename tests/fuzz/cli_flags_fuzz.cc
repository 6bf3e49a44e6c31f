// Fuzz entry: the `--dim NAME=VALUE`, `--class CLASS=REGEX` and `--alias OUT=IN` strings, one
// command-line argument per input line, through the CLI's own flag definitions and validators
// (CLI11), then used as `hyperplan plan` uses them on the fixed model (fuzz_support.h): dims
// bound and class rules applied in the import, alias rules matched (RE2) and the loop graph
// built. A CLI11 parse error is the usage error (exit 2) a user sees, so it is expected.
// Cost per input: one CLI11 parse, one import of a 27-node model, RE2 matches per value.
#include <CLI/CLI.hpp>
#include <algorithm>

#include "cli/model_inputs.h"
#include "fuzz_support.h"
#include "hyperplan/adapters/profile_yaml.h"
#include "hyperplan/error.h"
#include "hyperplan/loop.h"

namespace {

// The arguments: the fixed model, then each line of the input.
std::vector<std::string> Arguments(std::string_view text) {
  std::vector<std::string> arguments = {hyperplan::fuzz::FixedModelPath()};
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    arguments.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return arguments;
}

}  // namespace

int FuzzOne(const uint8_t* data, size_t size) {
  using namespace hyperplan;
  static const HardwareProfile profile = DefaultProfile();
  return fuzz::RunGuarded([&] {
    CLI::App app("fuzz");
    cli::ModelInputFlags flags;
    std::vector<std::string> alias_flags;
    cli::AddModelInputFlags(app, flags);
    // As `plan` declares --alias (plan_command.cc): ParseAliasRule is its validator.
    app.add_option("--alias", alias_flags)
        ->check(CLI::Validator(
            [](const std::string& text) {
              try {
                ParseAliasRule(text);
                return std::string();
              } catch (const hyperplan::Error& error) {
                return std::string(error.what());
              }
            },
            "OUT=IN", "alias"));
    std::vector<std::string> arguments = Arguments(fuzz::AsText(data, size));
    std::reverse(arguments.begin(), arguments.end());  // CLI11 consumes from the back
    try {
      app.parse(arguments);
    } catch (const CLI::ParseError&) {
      return;  // the usage error the CLI reports with exit code 2
    }
    const Graph graph = ImportOnnxModel(fuzz::FixedModelPath(),
                                        cli::ImportOptionsFromFlags(flags, profile.class_rules));
    std::vector<AliasRule> rules;
    for (const std::string& text : alias_flags) rules.push_back(ParseAliasRule(text));
    const std::vector<ValueAlias> aliases = FindAliases(graph, rules);
    const Graph loop_graph = LoopGraph(graph, aliases);
    PersistentValues(loop_graph, aliases);
  });
}
