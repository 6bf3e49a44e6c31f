// Loop test graphs shared by the planner's loop tests (loop_test.cc, which works their plans
// out by hand) and the executor's tests (tests/executor), which run those plans: one weight read
// twice an iteration, and a decode-like step with an in-place KV append. Unit rates
// (planner_support.h).
#pragma once

#include "hyperplan/loop.h"
#include "planner_support.h"

namespace hyperplan::planner_test {

// w (50 B weight, home ddr) is read at steps 0 and 3; steps 1 and 4 need 200 B of scratch.
//   n0 w -> a      10 ns       T = [0, 10, 110, 210, 220, 230]
//   n1 a -> b     100 ns, 200 B scratch
//   n2 b -> c     100 ns
//   n3 c, w -> d   10 ns
//   n4 d -> y      10 ns, 200 B scratch
// Peak 50 + 1 + 1 + 200 = 252 at steps 1 and 4. With a 210 B budget w leaves after each use:
// two Prefetches, two Detaches an iteration.
struct TwiceRead {
  Graph graph;
  ValueId w, a;
  TwiceRead() {
    w = Weight(graph, "w", 50);
    a = Work(graph, "n0", {w}, "a", 1, 10);
    const ValueId b = Work(graph, "n1", {a}, "b", 1, 100, 200);
    const ValueId c = Work(graph, "n2", {b}, "c", 1, 100);
    const ValueId d = Work(graph, "n3", {c, w}, "d", 1, 10);
    MarkOutput(graph, Work(graph, "n4", {d}, "y", 1, 10, 200));
  }
};

// A decode-like step with an in-place KV append. past (100 B) is a graph input, present
// (110 B: one more token) a graph output named by the exporter convention, so they alias.
//   n0 () -> a            100 ns       T = [0, 100, 110, 120, 220]
//   n1 past, a -> present  10 ns       (the append: writes 110 - 100 = 10 new bytes)
//   n2 present -> y        10 ns
//   n3 y -> z (output)    100 ns, 300 B scratch
// In the loop graph past is one 110 B buffer owned outside the run, read at steps 1 and 2.
// Resident per step: 110 + 1 = 111, 111, 110 + 1 = 111, 110 + 1 + 1 + 300 = 412.
struct KvAppend {
  Graph graph;
  ValueId past, present;
  KvAppend() {
    past = Input(graph, "past_key_values.0.key", 100);
    const ValueId a = Work(graph, "n0", {}, "a", 1, 100);
    present = Work(graph, "n1", {past, a}, "present.0.key", 110, 10);
    MarkOutput(graph, present);
    const ValueId y = Work(graph, "n2", {present}, "y", 1, 10);
    MarkOutput(graph, Work(graph, "n3", {y}, "z", 1, 100, 300));
  }
  PlanOptions Options(int64_t budget_bytes) const {
    PlanOptions options = Budget(budget_bytes);
    options.aliases = FindAliases(graph, {});
    return options;
  }
};

}  // namespace hyperplan::planner_test
