// Hardware profile loading from YAML (schema: schemas/profile.md).
//
// Validation collects every problem before failing: the Error message lists them all, one per
// line, each as "file:line:column: problem". yaml-cpp exceptions never escape.
#pragma once

#include <string>

#include "hyperplan/hardware.h"

namespace hyperplan {

HardwareProfile LoadProfileFile(const std::string& path);

// Parses YAML text; `source_name` stands for the file in messages and in HardwareProfile::source.
HardwareProfile ParseProfileYaml(const std::string& yaml_text, const std::string& source_name);

// The profile used when --hw is omitted (configs/supernode.yaml, compiled in).
HardwareProfile DefaultProfile();

}  // namespace hyperplan
