// Model inputs shared by every subcommand that reads a model: the model path, the hardware
// profile (--hw NAME or FILE, or the embedded default), bound dims (--dim, then an exporter's
// genai_config.json or config.json beside the model: exporter_config.h) and class rules
// (--class).
//
// Flag syntax is checked by CLI11 validators at parse time (exit code 2); files are opened by
// the adapters so that a missing file reports exit code 3 with its path.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <string>
#include <vector>

#include "hyperplan/adapters/onnx_import.h"
#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"

namespace hyperplan::cli {

struct ModelInputFlags {
  std::string model_path;
  std::string profile_path;              // a shipped profile's name or a file; empty: default
  std::vector<std::string> dim_flags;    // "name=value"
  std::vector<std::string> class_flags;  // "class=regex"
  // plan and fit: refuse values of unknown size (ImportOptions), unless --allow-unknown.
  bool refuse_unknown_sizes = false;
  // plan, fit, inspect: --expert-stats FILE, a routing profile for MoE nodes (expert_stats_flag.h).
  std::string expert_stats_path;
};

struct ModelInputs {
  Graph graph;
  HardwareProfile profile;
};

// CLI11 validator of one --dim: "" or the problem.
std::string ValidateDim(const std::string& text);

// CLI11 validator of a byte size with its unit (--budget 64GiB, run's --max-memory 4GiB).
std::string ValidateByteSize(const std::string& text);

// CLI11 validator of one --alias OUT=IN (loop.h ParseAliasRule): "" or the problem.
std::string ValidateAlias(const std::string& text);

// Validated --dim flags as a map; Error(kUsage) when a name is bound twice to two values.
std::map<std::string, int64_t, std::less<>> ParseDims(const std::vector<std::string>& flags);

// Adds the positional model and --hw, --dim, --class to `command`.
void AddModelInputFlags(CLI::App& command, ModelInputFlags& flags);

// Makes `command` refuse values of unknown size that could change the plan, and adds
// --allow-unknown, which plans them as 0 bytes instead (plan, fit).
void AddAllowUnknownFlag(CLI::App& command, ModelInputFlags& flags);

// Adds how the model runs, for plan and fit: --single-run (one run from a free preload) and
// --alias OUT=IN (loop state beyond the exporter conventions).
void AddLoopFlags(CLI::App& command, bool& single_run, std::vector<std::string>& alias_flags);

// --device-only: plan every node on the device (PlanOptions::host_compute false).
void AddDeviceOnlyFlag(CLI::App& command, bool& device_only);

// The import options the flags give (they passed the validators AddModelInputFlags installs):
// bound dims, then class rules, command-line rules first and `profile_rules` after. Throws
// Error(kUsage) when one dim is bound to two values.
ImportOptions ImportOptionsFromFlags(const ModelInputFlags& flags,
                                     const std::vector<ClassRule>& profile_rules);

// Loads the profile, then imports the model with its dims and class rules (command-line rules
// first, so they win over the profile's). `allow_unbound_dims`: see ImportOptions.
ModelInputs LoadModelInputs(const ModelInputFlags& flags, bool allow_unbound_dims = false);

}  // namespace hyperplan::cli
