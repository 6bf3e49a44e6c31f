// Test support: training steps whose weights a host step updates in place (docs/design.md
// "Compute units"): one whose weight the forward and the backward pass both read, for the
// planner's streaming test (host_update_test.cc) and the executor's run of that plan
// (host_update_lane_test.cc); one whose update runs right after its gradient, beside the rest
// of the backward pass (crossing_detach_test.cc); one whose update takes the token table's
// lookup and gradient scatter along (embedding_update_test.cc, embedding_lane_test.cc); one
// whose update ends the iteration after the device's last node (host_early_order_test.cc).
#pragma once

#include <string>
#include <vector>

#include "planner_support.h"

namespace hyperplan::planner_test {

// A training step whose weight the forward and the backward pass both read, with an
// activation peak between them: forward n0 W -> a (4 B, 10 FLOP); n1 a -> h (200 B, 100
// FLOP); n2 h -> d (4 B, 100 FLOP); n3 d -> e (4 B, 100 FLOP); backward n4 e -> g (W's
// gradient, 100 B, 100 FLOP), then n5 (e, W) -> dx (the input's gradient, 4 B, 100 FLOP), the
// last device read of W, after its gradient; Adam on the host: n6 (g, M) -> M.updated, n7 (W,
// M.updated) -> W.updated, 100 B and 100 FLOP each. W and M: 100 B each.
struct ForwardBackward {
  Graph graph;
  ValueId w, m, g;
  ForwardBackward() {
    const std::string name = "model.layers.0.mlp.w";
    w = Weight(graph, name, 100);
    m = Input(graph, name + ".exp_avg", 100);
    graph.values[m].value_class = ValueClass::kOptimizerState;
    const ValueId a = Work(graph, "n0", {w}, "a", 4, 10);
    const ValueId h = Work(graph, "n1", {a}, "h", 200, 100);
    const ValueId d = Work(graph, "n2", {h}, "d", 4, 100);
    const ValueId e = Work(graph, "n3", {d}, "e", 4, 100);
    g = Work(graph, "n4", {e}, name + ".grad", 100, 100);
    MarkOutput(graph, Work(graph, "n5", {e, w}, "dx", 4, 100));
    const ValueId m_updated = Work(graph, "n6", {g, m}, name + ".updated.exp_avg", 100, 100);
    MarkOutput(graph, m_updated);
    MarkOutput(graph, Work(graph, "n7", {w, m_updated}, name + ".updated", 100, 100));
  }
};

// A training step whose update runs right after its gradient, as the eager-update order runs
// it, and the backward pass goes on on the device: forward n0 (x, W) -> a (4 B, 10 FLOP);
// n1 a -> g (W's gradient, in half W's precision: 50 B, 100 FLOP); Adam on the host: n2 (g, M)
// -> M.updated, n3 (W, M.updated) -> W.updated (100 B, 100 FLOP each); the rest of the
// backward pass on the device: n4 a -> b (`b_bytes`, 300 FLOP), n5 b -> c (4 B, 300 FLOP, an
// output). W and M: 100 B each; x 4 B.
struct UpdateBesideBackward {
  Graph graph;
  ValueId w, g, b;
  explicit UpdateBesideBackward(int64_t b_bytes) {
    const std::string name = "model.layers.0.mlp.w";
    const ValueId x = Input(graph, "x", 4);
    w = Weight(graph, name, 100);
    const ValueId m = Input(graph, name + ".exp_avg", 100);
    graph.values[m].value_class = ValueClass::kOptimizerState;
    const ValueId a = Work(graph, "n0", {x, w}, "a", 4, 10);
    g = Work(graph, "n1", {a}, name + ".grad", 50, 100);
    const ValueId m_updated = Work(graph, "n2", {g, m}, name + ".updated.exp_avg", 100, 100);
    MarkOutput(graph, m_updated);
    MarkOutput(graph, Work(graph, "n3", {w, m_updated}, name + ".updated", 100, 100));
    b = Work(graph, "n4", {a}, "b", b_bytes, 300);
    MarkOutput(graph, Work(graph, "n5", {b}, "c", 4, 300));
  }
};

// A training step over a 1000 B token table E (its lookup and gradient scatter go with its
// update on the host: planner/embedding_update.h; embedding_update_test.cc plans it,
// embedding_lane_test.cc runs that plan) with Adam on its moment M (1000 B): n0 Gather (E,
// ids) -> x (the rows, 10 B); n1 x -> y, n2 y -> dx (the rows' gradient, `dx_bytes`), 100
// FLOP each; n3 () -> z (the zeros scattered into, 1000 B); n4 (z, ids, dx) -> E.grad (1000
// B, the scatter); Adam on the host n5 (E.grad, M) -> M.updated, n6 (E, M.updated) ->
// E.updated (1000 B each).
struct EmbeddingStep {
  Graph graph;
  ValueId ids, table;
  explicit EmbeddingStep(int64_t dx_bytes) {
    const std::string name = "model.embed_tokens.weight";
    ids = Input(graph, "input_ids", 4);
    table = Weight(graph, name, 1000);
    const ValueId m = Input(graph, name + ".exp_avg", 1000);
    graph.values[m].value_class = ValueClass::kOptimizerState;
    const ValueId x = Work(graph, "n0", {table, ids}, "x", 10, 10);
    graph.nodes[0].op_type = "Gather";
    const ValueId y = Work(graph, "n1", {x}, "y", 10, 100);
    const ValueId dx = Work(graph, "n2", {y}, "dx", dx_bytes, 100);
    const ValueId z = Work(graph, "n3", {}, "z", 1000, 10);
    const ValueId g = Work(graph, "n4", {z, ids, dx}, name + ".grad", 1000, 10);
    const ValueId m_updated = Work(graph, "n5", {g, m}, name + ".updated.exp_avg", 1000, 100);
    MarkOutput(graph, m_updated);
    MarkOutput(graph, Work(graph, "n6", {table, m_updated}, name + ".updated", 1000, 100));
  }
};

// A training step whose update ends the iteration, after the device's last node (as the token
// table's does): forward n0 (x, W) -> a (4 B); backward n1 a -> g (W's gradient, 100 B), the
// device's last node; Adam on the host: n2 M -> md (M's decay, reading only state), n3 g -> gs,
// n4 (md, gs) -> M.updated (writes M in place), n5 S -> S.updated (the step count's increment,
// reading only state, written in place), n6 M.updated -> r (read after M's update), n7 (W, r)
// -> W.updated. With `device_last`, n8 a -> y (4 B, a graph output) runs on the device after
// them. W, M 100 B, S 4 B; every node 100 FLOP.
struct UpdateAtTail {
  Graph graph;
  explicit UpdateAtTail(bool device_last = false) {
    const std::string name = "model.layers.0.mlp.w";
    const ValueId x = Input(graph, "x", 4);
    const ValueId w = Weight(graph, name, 100);
    const ValueId m = Input(graph, name + ".exp_avg", 100);
    graph.values[m].value_class = ValueClass::kOptimizerState;
    const ValueId s = Input(graph, name + ".step", 4);
    graph.values[s].value_class = ValueClass::kOptimizerState;
    const ValueId a = Work(graph, "n0", {x, w}, "a", 4, 100);
    const ValueId g = Work(graph, "n1", {a}, name + ".grad", 100, 100);
    const ValueId md = Work(graph, "n2", {m}, "md", 100, 100);
    const ValueId gs = Work(graph, "n3", {g}, "gs", 100, 100);
    const ValueId m_updated = Work(graph, "n4", {md, gs}, name + ".updated.exp_avg", 100, 100);
    MarkOutput(graph, m_updated);
    MarkOutput(graph, Work(graph, "n5", {s}, name + ".updated.step", 4, 100));
    const ValueId r = Work(graph, "n6", {m_updated}, "r", 100, 100);
    MarkOutput(graph, Work(graph, "n7", {w, r}, name + ".updated", 100, 100));
    if (device_last) MarkOutput(graph, Work(graph, "n8", {a}, "y", 4, 100));
  }

  // n2..n7 on the host, the rest on the device.
  std::vector<ComputeUnit> Units() const {
    std::vector<ComputeUnit> units(graph.nodes.size(), ComputeUnit::kDevice);
    for (NodeId n = 2; n <= 7; ++n) units[n] = ComputeUnit::kHost;
    return units;
  }
};

}  // namespace hyperplan::planner_test
