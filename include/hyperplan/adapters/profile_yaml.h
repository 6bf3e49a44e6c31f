// Hardware profile loading from YAML (schema: schemas/profile.md).
//
// Validation collects every problem before failing: the Error message lists them all, one per
// line, each as "file:line:column: problem" (1-based, sorted by position). yaml-cpp exceptions
// never escape. Cost: linear in the file, plus one regex compile per user class rule.
#pragma once

#include <string>
#include <vector>

#include "hyperplan/hardware.h"

namespace hyperplan {

// Reads and parses `path`; HardwareProfile::source is `path`. Throws Error(kInputFile,
// "<path>: cannot read: <strerror>") when the file cannot be read, Error(kProfile) listing
// every problem when it is not a valid profile.
HardwareProfile LoadProfileFile(const std::string& path);

// Parses YAML text; `source_name` stands for the file in messages and in HardwareProfile::source.
// Throws Error(kProfile) listing every problem.
HardwareProfile ParseProfileYaml(const std::string& yaml_text, const std::string& source_name);

// The profile used when --hw is omitted (configs/supernode.yaml, compiled in); its source is
// "embedded default (configs/supernode.yaml)". Parsed once per process; each call returns a
// copy.
HardwareProfile DefaultProfile();

// The shipped profiles' names (the stems of configs/*.yaml, all compiled in), sorted.
std::vector<std::string> ShippedProfileNames();

// A shipped profile by name ("h100-sxm"); its source is "embedded (configs/<name>.yaml)".
// Throws Error(kUsage) for an unknown name, with the nearest name and the full list.
HardwareProfile ShippedProfile(const std::string& name);

// Whether --hw's value names a file rather than a shipped profile: it holds a '/' or ends in
// ".yaml" or ".yml".
bool IsProfilePath(const std::string& name_or_path);

// --hw: LoadProfileFile for a path (IsProfilePath), else ShippedProfile.
HardwareProfile LoadProfile(const std::string& name_or_path);

}  // namespace hyperplan
