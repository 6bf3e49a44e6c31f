// Generated models of the fidelity rows (see fidelity_model.h).
#include "fidelity_model.h"

#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <stdexcept>

#include "process_stats.h"

namespace hyperplan::bench {
namespace {

constexpr int kUsageExit = 2;  // README "Exit codes": a flag the generator does not take

// FNV-1a over the arguments, each ended by a NUL: the same flags give the same file name.
uint64_t FlagsHash(const std::vector<std::string>& args) {
  uint64_t hash = 14695981039346656037ull;
  for (const std::string& arg : args) {
    for (const char c : arg + '\0') {
      hash ^= static_cast<unsigned char>(c);
      hash *= 1099511628211ull;
    }
  }
  return hash;
}

std::vector<std::string> GeneratorArgs(const FidelityRow& row,
                                       const std::vector<std::string>& flags) {
  std::vector<std::string> args = {"--from-hf-config",
                                   std::string(HYPERPLAN_SOURCE_DIR) + "/" + row.hf_config,
                                   "--form", row.form};
  args.insert(args.end(), flags.begin(), flags.end());
  return args;
}

std::string CachedPath(const FidelityRow& row, const std::vector<std::string>& flags,
                       const std::string& models_dir) {
  const std::string stem = std::filesystem::path(row.hf_config).stem().string();
  return fmt::format("{}/fidelity-{}-{}-{:016x}.onnx", models_dir, stem, row.form,
                     FlagsHash(GeneratorArgs(row, flags)));
}

// The generator's exit code (0 when the model was already cached).
int Generate(const FidelityRow& row, const std::vector<std::string>& flags,
             const std::string& path) {
  if (std::filesystem::exists(path)) return 0;
  std::vector<std::string> argv = {HYPERPLAN_GEN_PATH};
  const std::vector<std::string> args = GeneratorArgs(row, flags);
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"-o", path});
  return RunMeasured(argv).exit_code;
}

}  // namespace

FidelityModel EnsureFidelityModel(const FidelityRow& row, const std::string& models_dir) {
  std::filesystem::create_directories(models_dir);
  FidelityModel model{CachedPath(row, row.generator, models_dir), row.generator, false};
  int exit_code = Generate(row, model.flags, model.path);
  if (exit_code == kUsageExit) {
    model = {CachedPath(row, row.generator_today, models_dir), row.generator_today, true};
    exit_code = Generate(row, model.flags, model.path);
  }
  if (exit_code != 0) {
    throw std::runtime_error(fmt::format("row '{}': generating {} failed (hyperplan-gen exit {})",
                                         row.id, model.path, exit_code));
  }
  return model;
}

}  // namespace hyperplan::bench
