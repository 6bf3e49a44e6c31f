// Fuzz entry: the `--dim NAME=VALUE`, `--class CLASS=REGEX` and `--alias OUT=IN` strings, and
// fit's `--grow NAME[=MIN..MAX]`, `--sweep NAME=FROM..TO[:STEP]` and `--tie NAME=EXPRESSION`,
// one command-line argument per input line, through the CLI's own flag definitions and
// validators (CLI11), then used as `hyperplan plan` and `fit` use them on the fixed model
// (fuzz_support.h): the sweep's values listed, the moved dim bound at its first value, ties
// evaluated, dims bound and class rules applied in the import, alias rules matched (RE2) and
// the loop graph built. A CLI11 parse error is the usage error (exit 2) a user sees, so it is
// expected. Cost per input: one CLI11 parse, one import of a 27-node model, RE2 matches per
// value.
#include <CLI/CLI.hpp>
#include <algorithm>

#include "cli/fit_range.h"
#include "cli/model_inputs.h"
#include "fuzz_support.h"
#include "hyperplan/adapters/dim_ties.h"
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
    // As `fit` declares them (fit_command.cc).
    std::string grow, sweep;
    std::vector<std::string> ties;
    auto validator = [](auto parse, const char* name) {
      return CLI::Validator(
          [parse](const std::string& text) {
            std::string problem;
            parse(text, problem);
            return problem;
          },
          name, name);
    };
    app.add_option("--grow", grow)->check(validator(cli::ParseGrowRange, "grow"));
    app.add_option("--sweep", sweep)->check(validator(cli::ParseSweepRange, "sweep"));
    app.add_option("--tie", ties)
        ->check(CLI::Validator([](const std::string& text) { return DimTieProblem(text); },
                               "NAME=EXPRESSION", "tie"));
    std::vector<std::string> arguments = Arguments(fuzz::AsText(data, size));
    std::reverse(arguments.begin(), arguments.end());  // CLI11 consumes from the back
    try {
      app.parse(arguments);
    } catch (const CLI::ParseError&) {
      return;  // the usage error the CLI reports with exit code 2
    }
    ImportOptions options = cli::ImportOptionsFromFlags(flags, profile.class_rules);
    std::string problem;
    if (const auto range = cli::ParseGrowRange(grow, problem); !grow.empty() && range) {
      options.dims[range->dim] = range->min;
    }
    if (const auto range = cli::ParseSweepRange(sweep, problem); !sweep.empty() && range) {
      options.dims[range->dim] = range->Values().back();
    }
    BindTiedDims(ties, options.dims);
    const Graph graph = ImportOnnxModel(fuzz::FixedModelPath(), options);
    std::vector<AliasRule> rules;
    for (const std::string& text : alias_flags) rules.push_back(ParseAliasRule(text));
    const std::vector<ValueAlias> aliases = FindAliases(graph, rules);
    const Graph loop_graph = LoopGraph(graph, aliases);
    PersistentValues(loop_graph, aliases);
  });
}
