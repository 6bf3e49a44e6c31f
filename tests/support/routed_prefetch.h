// Test support: the Prefetch that brings a stacked expert operand in the routed fixtures
// (routed_moe.h, routed_gather.h), ddr -> hbm on link 1, channel 0: whole at boundary 0 with
// no waits, or routed after the router (boundary 1, waiting for its step 0), moving `bytes`
// and reserving `reserved_bytes` for the node `reader` that picks the experts.
#pragma once

#include <cstdint>

#include "hyperplan/plan/plan.h"

namespace hyperplan::testing {

inline PlanStep StackedPrefetch(ValueId value, NodeId reader, bool routed, int64_t bytes,
                                int64_t reserved_bytes) {
  PlanStep fetch;
  fetch.kind = StepKind::kPrefetch;
  fetch.value = value;
  fetch.src_tier = 1;
  fetch.dst_tier = 0;
  fetch.link = 1;
  fetch.channel = 0;
  fetch.bytes = bytes;
  if (routed) {
    fetch.boundary = 1;
    fetch.waits_for = {0};
    fetch.routed_by = reader;
    fetch.reserved_bytes = reserved_bytes;
  }
  return fetch;
}

}  // namespace hyperplan::testing
