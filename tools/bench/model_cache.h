// Generated models for the benchmarks, cached in a directory: each is written once by
// hyperplan-gen (external weights are never written) and reused by later runs.
// Cost: one generator run per missing model. Limits: a stale cache is not detected; delete
// the directory after changing the generator.
#pragma once

#include <string>

#include "workloads.h"

namespace hyperplan::bench {

// The model's path, generating it first when missing. Throws std::runtime_error on failure.
std::string EnsureModel(const Workload& workload, const std::string& models_dir);

}  // namespace hyperplan::bench
