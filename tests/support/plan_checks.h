// Test support: what every end-to-end test of a model form checks of a plan it wrote: the plan
// verifies against the model and replays twice in the reference executor on real buffers.
// Cost: two runs of the hyperplan executable.
#pragma once

#include <catch2/catch.hpp>
#include <string>

#include "support/run_command.h"

namespace hyperplan::testing {

// `cli verify PLAN --model MODEL`, then `cli run PLAN --model MODEL --iterations 2`: both exit 0.
inline void CheckVerifiesAndRuns(const std::string& cli, const std::string& plan,
                                 const std::string& model) {
  const CommandResult verified = RunCommand({cli, "verify", plan, "--model", model});
  INFO(verified.stdout_text + verified.stderr_text);
  CHECK(verified.exit_code == 0);
  const CommandResult ran = RunCommand({cli, "run", plan, "--model", model, "--iterations", "2"});
  INFO(ran.stdout_text + ran.stderr_text);
  CHECK(ran.exit_code == 0);
}

}  // namespace hyperplan::testing
