// Test support: a plan run by the reference executor on the host backend with every check on
// (CheckMode::kFull), for a number of loop iterations. Cost: the executor's, per iteration.
#pragma once

#include <cstdint>

#include "executor/executor.h"
#include "executor/host_backend.h"

namespace hyperplan::testing {

inline executor::ExecutionReport RunFullyChecked(const Graph& graph, const HardwareProfile& profile,
                                                 const Plan& plan, int32_t iterations) {
  executor::HostBackend backend(executor::CheckMode::kFull);
  executor::ExecuteOptions options;
  options.iterations = iterations;
  return executor::Execute(graph, profile, plan, backend, options);
}

}  // namespace hyperplan::testing
