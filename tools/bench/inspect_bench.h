// The import + inspect benchmark: for each generated workload, file size, nodes, the time and
// peak RSS of `hyperplan inspect`, and in the same run the time and RSS of protobuf alone
// parsing the same file (the floor). Prints a Markdown table. Cost: generation once per model
// (cached in the models directory), then `repeat` runs of each command; the best time is kept.
#pragma once

#include <string>

namespace hyperplan::bench {

struct InspectBenchOptions {
  std::string models_dir;  // where generated models are cached
  int repeat = 3;
  bool series = false;  // also the nodes-vs-time series
};

int RunInspectBench(const InspectBenchOptions& options);

}  // namespace hyperplan::bench
