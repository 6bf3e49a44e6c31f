// The one fill of BuildStats (see build_stats.h).
#include "build_stats.h"

#include "graph_builder.h"
#include "weight_store.h"

namespace hyperplan::gen {

void RecordBuildStats(const GraphBuilder& graph, const WeightStore& weights, BuildStats* stats) {
  if (stats == nullptr) return;
  stats->node_count = graph.node_count();
  stats->weight_count = weights.tensor_count();
  stats->weight_bytes = weights.total_bytes();
  stats->weights_file_bytes = weights.external() ? weights.file_end_bytes() : 0;
}

}  // namespace hyperplan::gen
