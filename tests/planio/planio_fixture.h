// Test fixture for plan files: one tiny chain whose plan is worked out by hand, made into a
// core Plan and its schemas/plan.proto message.
//
// Unit profile (tests/support/tiny_graph.h): hbm (device) and ddr, 1 byte/ns each way, no
// latency, one channel per link; weights live in ddr when off the device. Node times are set
// explicitly (PlanOptions::node_time_ns), 1000 ns each:
//   n0 W -> a           W 1000 B weight, a 10 B
//   n1 a -> b           b 500 B
//   n2 b -> c           c 10 B
//   n3 (c, W) -> out    out 10 B graph output
// Only W has an idle gap (steps 1 and 2); every other value is read right after it is made.
// Resident bytes per step with nothing offloaded:
//   step 0: W + a = 1010; step 1: W + a + b = 1510; step 2: W + b + c = 1510;
//   step 3: W + c + out = 1020.
// With a budget of 1100, W cannot stay through steps 1 and 2 (1510 > 1100), and with W absent
// they need 510; so W is dropped after n0 (its home copy in ddr exists: no Store) and fetched
// back for n3. The Prefetch may allocate only once n2 has ended (W back during step 2 would
// need 1510), so its 1000 bytes at 1 byte/ns delay n3 by 1000 ns:
//   makespan = 4 x 1000 + 1000 = 5000 ns, baseline 4000 ns, stall 1000 ns; live peak 1020.
// The plan is one-shot (PlanOptions::single_run): W is resident at the start, loaded with the
// model; tests/planio/plan_loop_test.cc covers the periodic form.
#pragma once

#include <string>

#include "hyperplan/planner/planner.h"
#include "planio/plan_to_proto.h"
#include "support/tiny_graph.h"

namespace hyperplan::planio_test {

// What a plan file records of the tool and the model it was planned from: a test's model path
// and options, a fixed version, digest and size (no file is read).
inline planio::PlanProvenance TestProvenance(const std::string& model_path,
                                             const PlanOptions& options) {
  planio::PlanProvenance provenance;
  provenance.tool_version = "test";
  provenance.model_path = model_path;
  provenance.model_sha256 = std::string(64, 'a');
  provenance.model_file_bytes = 123;
  provenance.options = options;
  return provenance;
}

// The provenance of a one-shot plan (PlanOptions::single_run), as the hand plans are.
inline planio::PlanProvenance SingleRunProvenance(const std::string& model_path) {
  PlanOptions options;
  options.single_run = true;
  return TestProvenance(model_path, options);
}

struct ChainFixture {
  Graph graph;
  HardwareProfile profile = testing::UnitProfile();
  ValueId w, a, b, c, out;
  NodeId n0, n1, n2, n3;
  PlanOptions options;

  ChainFixture() {
    using namespace hyperplan::testing;
    graph.name = "chain";
    w = Weight(graph, "W", 1000);
    a = Bytes(graph, "a", 10);
    b = Bytes(graph, "b", 500);
    c = Bytes(graph, "c", 10);
    out = Bytes(graph, "out", 10);
    n0 = Op(graph, "n0", "Work", {w}, {a});
    n1 = Op(graph, "n1", "Work", {a}, {b});
    n2 = Op(graph, "n2", "Work", {b}, {c});
    n3 = Op(graph, "n3", "Work", {c, w}, {out});
    MarkOutput(graph, out);
    options.budget_bytes = 1100;
    options.node_time_ns = {1000, 1000, 1000, 1000};
    options.single_run = true;
  }

  PlanResult Plan() const { return PlanOffload(graph, profile, options); }

  planio::PlanProvenance Provenance() const { return TestProvenance("chain.onnx", options); }

  plan::v1::Plan Message() const {
    return planio::PlanToProto(graph, profile, Plan(), Provenance());
  }
};

// Index of the only step of `kind` on `value`; -1 when there is none or more than one.
inline int StepIndex(const plan::v1::Plan& plan, plan::v1::StepKind kind, int value) {
  int found = -1;
  for (int i = 0; i < plan.steps_size(); ++i) {
    if (plan.steps(i).kind() != kind || plan.steps(i).value() != value) continue;
    if (found >= 0) return -1;
    found = i;
  }
  return found;
}

// Index of the compute step of `node`.
inline int ComputeIndex(const plan::v1::Plan& plan, int node) {
  for (int i = 0; i < plan.steps_size(); ++i) {
    if (plan.steps(i).kind() == plan::v1::STEP_KIND_COMPUTE && plan.steps(i).node() == node) {
      return i;
    }
  }
  return -1;
}

}  // namespace hyperplan::planio_test
