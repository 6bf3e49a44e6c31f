// Model inputs shared by the subcommands (see model_inputs.h).
#include "model_inputs.h"

#include <spdlog/spdlog.h>

#include <charconv>
#include <stdexcept>

#include "expert_stats_flag.h"
#include "hyperplan/adapters/exporter_config.h"
#include "hyperplan/adapters/onnx_import.h"
#include "hyperplan/adapters/profile_yaml.h"
#include "hyperplan/classify.h"
#include "hyperplan/error.h"
#include "hyperplan/loop.h"
#include "hyperplan/units.h"
#include "verbosity.h"

namespace hyperplan::cli {
namespace {

// "name=value" split at the first '='; both sides non-empty.
bool SplitAssignment(const std::string& text, std::string& name, std::string& value) {
  const size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == text.size()) return false;
  name = text.substr(0, equals);
  value = text.substr(equals + 1);
  return true;
}

}  // namespace

std::string ValidateDim(const std::string& text) {
  std::string name, value;
  if (!SplitAssignment(text, name, value)) return "expected NAME=VALUE, got '" + text + "'";
  int64_t parsed = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
  if (error != std::errc() || end != value.data() + value.size() || parsed < 0) {
    return "dim '" + name + "' needs a non-negative integer, got '" + value + "'";
  }
  return "";
}

std::string ValidateByteSize(const std::string& text) {
  try {
    ParseQuantity(text, Quantity::kBytes);
    return "";
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
}

std::string ValidateAlias(const std::string& text) {
  try {
    ParseAliasRule(text);
    return "";
  } catch (const Error& error) {
    return error.what();
  }
}

namespace {

std::string ValidateClassRule(const std::string& text) {
  std::string name, pattern;
  if (!SplitAssignment(text, name, pattern)) return "expected CLASS=REGEX, got '" + text + "'";
  if (!ParseValueClass(name)) {
    return "unknown class '" + name +
           "' (weight, graph_input, graph_output, activation, kv_cache, optimizer_state)";
  }
  return ClassPatternError(pattern);
}

}  // namespace

void AddModelInputFlags(CLI::App& command, ModelInputFlags& flags) {
  command.add_option("model", flags.model_path, "ONNX model (.onnx)")->required();
  command.add_option("--hw", flags.profile_path,
                     "hardware profile: a shipped profile's name (see `hyperplan profiles`) or a "
                     "YAML file path (default: the embedded configs/supernode.yaml)");
  command
      .add_option("--dim", flags.dim_flags,
                  "bind a symbolic dimension, NAME=VALUE (repeatable), e.g. --dim batch=1")
      ->check(CLI::Validator(ValidateDim, "NAME=VALUE", "dim"))
      ->take_all()
      ->allow_extra_args(false);
  command
      .add_option("--class", flags.class_flags,
                  "assign a class to values whose whole name matches REGEX (RE2 syntax, "
                  "github.com/google/re2/wiki/Syntax), CLASS=REGEX (repeatable; first match "
                  "wins, before the profile's rules)")
      ->check(CLI::Validator(ValidateClassRule, "CLASS=REGEX", "class rule"))
      ->take_all()
      ->allow_extra_args(false);
}

std::map<std::string, int64_t, std::less<>> ParseDims(const std::vector<std::string>& flags) {
  std::map<std::string, int64_t, std::less<>> dims;
  for (const std::string& text : flags) {
    std::string name, value;
    SplitAssignment(text, name, value);
    const int64_t size = std::stoll(value);
    if (auto [it, inserted] = dims.emplace(name, size); !inserted && it->second != size) {
      throw Error(ErrorKind::kUsage, "--dim " + name + " is bound twice, to " +
                                         std::to_string(it->second) + " and " + value);
    }
  }
  return dims;
}

void AddAllowUnknownFlag(CLI::App& command, ModelInputFlags& flags) {
  flags.refuse_unknown_sizes = true;
  command.add_flag_callback(
      "--allow-unknown", [&flags] { flags.refuse_unknown_sizes = false; },
      "plan values of unknown size (an operator with no shape rule, ...) as 0 bytes instead of "
      "refusing the model (exit 4)");
}

void AddLoopFlags(CLI::App& command, bool& single_run, std::vector<std::string>& alias_flags) {
  command.add_flag("--single-run", single_run,
                   "plan one run from a free preload instead of one iteration of a loop");
  command
      .add_option("--alias", alias_flags,
                  "OUT=IN: outputs matching the RE2 regex OUT are next iteration's input IN "
                  "(\\1.. from OUT's groups), updated in place (repeatable; added to the "
                  "exporter conventions present.N -> past_key_values.N, X.updated -> X)")
      ->check(CLI::Validator(ValidateAlias, "OUT=IN", "alias"));
}

void AddDeviceOnlyFlag(CLI::App& command, bool& device_only) {
  command.add_flag("--device-only", device_only,
                   "run every node on the device, even where the profile has a host_compute unit "
                   "(for a runtime that cannot compute on the host)");
}

ImportOptions ImportOptionsFromFlags(const ModelInputFlags& flags,
                                     const std::vector<ClassRule>& profile_rules) {
  ImportOptions options;
  options.refuse_unknown_sizes = flags.refuse_unknown_sizes;
  options.dims = ParseDims(flags.dim_flags);
  // An exporter's config beside the model binds the dims no --dim binds (-v says which).
  const ExporterConfig config = ReadExporterConfig(flags.model_path);
  options.default_dims = config.dims;
  for (const std::string& note : config.notes) spdlog::info("{}", note);
  for (const std::string& text : flags.class_flags) {
    std::string name, regex;
    SplitAssignment(text, name, regex);
    options.class_rules.push_back({*ParseValueClass(name), regex});
  }
  options.class_rules.insert(options.class_rules.end(), profile_rules.begin(), profile_rules.end());
  return options;
}

ModelInputs LoadModelInputs(const ModelInputFlags& flags, bool allow_unbound_dims) {
  ModelInputs inputs;
  inputs.profile = flags.profile_path.empty() ? DefaultProfile() : LoadProfile(flags.profile_path);
  ImportOptions options = ImportOptionsFromFlags(flags, inputs.profile.class_rules);
  options.allow_unbound_dims = allow_unbound_dims;
  inputs.graph = ImportOnnxModel(flags.model_path, options);
  ApplyExpertStats(flags.expert_stats_path, inputs.graph);
  LogDiagnostics(flags.model_path, inputs.graph.warnings, inputs.graph.notes);
  return inputs;
}

}  // namespace hyperplan::cli
