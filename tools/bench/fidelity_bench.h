// `hyperplan-bench fidelity`: hyperplan's predictions against published measurements. For
// each row of the data file (fidelity_data.h) it generates the model (fidelity_model.h), plans
// it with `hyperplan plan --summary-json` in a child process on the row's shipped profile, at
// the row's dims and budget, turns the plan's steady-state time per step into the published
// unit and prints one Markdown table: predicted, published, ratio, whether the ratio is within
// 0.8x-1.25x and, for a row outside, what the model lacks; then each row's source.
// Cost: one generator run per uncached model and one plan per row (seconds each; the 70B
// offload rows the longest). Limits: the output is deterministic (no timings, no dates);
// `--check` fails a row outside the band that names no gap.
#pragma once

#include <string>
#include <vector>

namespace hyperplan::bench {

struct FidelityOptions {
  std::string data_path;          // tools/bench/fidelity.yaml
  std::string models_dir;         // generated model cache
  std::vector<std::string> rows;  // keep rows whose id contains one of these (all if empty)
  bool check = false;             // exit 1 when a row outside the band has no gap
};

// Prints the table; returns 0, or 1 with --check when a row outside the band names no gap.
int RunFidelityBench(const FidelityOptions& options);

}  // namespace hyperplan::bench
