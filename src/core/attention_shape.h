// Where a fused attention op keeps its KV cache, and how long the keys it attends are: the
// operand positions of GroupQueryAttention, MultiHeadAttention, com.microsoft Attention and
// opset-23 Attention, read on a model graph (present outputs) or a loop graph (the past input
// updated in place, its present output gone). Shared by the FLOP and byte rules.
// Internal to src/core. Cost: O(1) per node.
#pragma once

#include <cstdint>
#include <optional>

#include "hyperplan/graph.h"

namespace hyperplan::cost_rules {

// One cache (keys, values, or com.microsoft Attention's combined K/V) of an attention node.
struct CacheSlot {
  const Value* past = nullptr;     // the cache input, absent in a prefill without past
  const Value* present = nullptr;  // the cache output, absent where a loop graph aliased it
  bool in_place = false;           // `past` is updated in place by this node (loop graph)
};

struct AttentionShape {
  CacheSlot caches[2];
  int cache_count = 0;
  int64_t query_rows = 1;  // new tokens per sequence
  int64_t key_rows = 0;    // keys each query may attend: past plus new
  bool causal = false;
  // Rotary tables GroupQueryAttention reads (cos_cache, sin_cache); null when absent.
  const Value* rotary_tables[2] = {nullptr, nullptr};
};

// The node's attention shape, or nullopt for an op that is not attention or has no query.
std::optional<AttentionShape> DescribeAttention(const Graph& graph, const Node& node);

// Bytes of a cache as the model held it before this step's append: on a loop graph an in-place
// buffer that grew holds past plus the append, and `written_bytes` is the append.
int64_t PastBytes(const CacheSlot& slot);

}  // namespace hyperplan::cost_rules
