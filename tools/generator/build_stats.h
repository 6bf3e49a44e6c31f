// What a build made, for hyperplan-gen's one-line report: node count, weight count and bytes,
// and where the external weights file ends. One fill (RecordBuildStats) serves every builder
// (decoder.cc, train_step.cc, gpt2_optimized.cc), so the report means the same for each form.
// Cost: O(1). Limits: counts the top-level graph only (the generator writes no subgraphs).
#pragma once

#include <cstdint>

namespace hyperplan::gen {

class GraphBuilder;
class WeightStore;

struct BuildStats {
  int64_t node_count = 0;
  int64_t weight_count = 0;
  int64_t weight_bytes = 0;
  int64_t weights_file_bytes = 0;  // external layout end (0 for inline weights)
};

// Fills `stats` from a finished build; does nothing when `stats` is null (callers that want no
// report pass null).
void RecordBuildStats(const GraphBuilder& graph, const WeightStore& weights, BuildStats* stats);

}  // namespace hyperplan::gen
