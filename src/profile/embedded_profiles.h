// The shipped profiles (configs/*.yaml), compiled into the binary at build time so that
// `--hw NAME` never looks for a file at run time. CMake writes the table
// (src/profile/embedded_profiles.cc.in); a configure re-run picks up edited or added files.
// Cost: the YAML text is static data (a few KB per profile). Limits: a YAML file must not
// contain the raw-string delimiter `)hyperplan_yaml"` (CMake refuses it).
#pragma once

#include <span>
#include <string_view>

namespace hyperplan::profile {

struct EmbeddedProfile {
  std::string_view name;  // the file's stem: "h100-sxm"
  std::string_view file;  // "configs/h100-sxm.yaml"
  std::string_view yaml;  // the file's text
};

// Sorted by name.
std::span<const EmbeddedProfile> EmbeddedProfiles();

}  // namespace hyperplan::profile
