// `hyperplan calibrate` (see calibrate_command.h).
#include "calibrate_command.h"

#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>

#include "calibrate/calibration.h"
#include "cuda/device.h"
#include "files/atomic_write.h"
#include "hyperplan/adapters/profile_yaml.h"
#include "hyperplan/error.h"
#include "verbosity.h"

namespace hyperplan::cli {
namespace {

struct CalibrateFlags {
  std::string base = "h100-sxm";
  std::string output_path;
  std::string name;
  bool quick = false;
};

void Calibrate(const CalibrateFlags& flags) {
  const HardwareProfile base = LoadProfile(flags.base);
  calibrate::HostTier(base);  // a base with no host link fails before the GPU is touched
  cuda::CalibrateOptions options;
  options.quick = flags.quick;
  const calibrate::Calibration calibration = cuda::RunCalibration(options);
  std::string out = calibrate::FormatCalibration(calibration);
  if (!flags.output_path.empty()) {
    const std::string name = flags.name.empty() ? base.name + "-measured" : flags.name;
    const std::string yaml = calibrate::MeasuredProfileYaml(base, calibration, name);
    try {
      ParseProfileYaml(yaml, flags.output_path);
    } catch (const Error& error) {
      throw Error(ErrorKind::kInternal,
                  fmt::format("calibrate wrote a profile that does not load: {}", error.what()));
    }
    files::WriteFileAtomically(flags.output_path, yaml);
    out += fmt::format("wrote {} (profile '{}', measured; base {})\n", flags.output_path, name,
                       base.source);
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}

}  // namespace

void AddCalibrateCommand(CLI::App& app) {
  auto flags = std::make_shared<CalibrateFlags>();
  CLI::App* command = app.add_subcommand(
      "calibrate",
      "Measure this machine's GPU (host link by transfer size, streams, HBM, GEMMs) and write a "
      "profile with the numbers (exit 11 without a GPU)");
  command->add_option("--hw", flags->base,
                      "base profile for what is not measured: a shipped profile's name or a "
                      "YAML file (default h100-sxm)");
  command->add_option("-o,--output", flags->output_path, "write the measured profile (YAML)");
  command->add_option("--name", flags->name, "the written profile's name (default BASE-measured)");
  command->add_flag("--quick", flags->quick, "fewer sizes and repeats (about a second)");
  AddVerbosityFlags(*command);
  command->callback([flags] { Calibrate(*flags); });
}

}  // namespace hyperplan::cli
