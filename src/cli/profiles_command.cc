// `hyperplan profiles` (see profiles_command.h).
#include "profiles_command.h"

#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "hyperplan/adapters/profile_yaml.h"

namespace hyperplan::cli {
namespace {

// Decimal units, as datasheets and the YAML files write capacities: "80 GB", "3.84 TB".
std::string DecimalBytes(int64_t bytes) {
  const double value = static_cast<double>(bytes);
  return value >= 1e12 ? fmt::format("{:g} TB", value / 1e12) : fmt::format("{:g} GB", value / 1e9);
}

// "hbm 80 GB (device), ddr 256 GB, nvme 3.84 TB".
std::string TierLine(const HardwareProfile& profile) {
  std::string line;
  for (const Tier& tier : profile.tiers) {
    if (!line.empty()) line += ", ";
    line += fmt::format("{} {}{}", tier.name, DecimalBytes(tier.capacity_bytes),
                        tier.is_device ? " (device)" : "");
  }
  return line;
}

std::string ProfileEntry(const std::string& name, const HardwareProfile& profile,
                         const HardwareProfile& default_profile) {
  const bool is_default = profile.name == default_profile.name;
  std::string text =
      fmt::format("  {:<12} {}{}\n", name, profile.description, is_default ? " (the default)" : "");
  text += fmt::format("  {:<12} {}; {}\n", "", profile.source, TierLine(profile));
  for (const ProfileSource& source : profile.sources) {
    text += fmt::format("  {:<12} [{}] {}\n", "", source.tag, source.citation);
  }
  return text;
}

}  // namespace

void AddProfilesCommand(CLI::App& app) {
  CLI::App* command = app.add_subcommand(
      "profiles",
      "List the shipped hardware profiles (--hw NAME) and the sources of their figures");
  command->callback([] {
    const HardwareProfile default_profile = DefaultProfile();
    std::string text =
        "Shipped hardware profiles (--hw NAME; a path with '/' or a .yaml extension reads a "
        "file instead):\n";
    for (const std::string& name : ShippedProfileNames()) {
      text += ProfileEntry(name, ShippedProfile(name), default_profile);
    }
    std::fwrite(text.data(), 1, text.size(), stdout);
  });
}

}  // namespace hyperplan::cli
