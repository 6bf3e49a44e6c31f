// The cut term (lower_bounds.h) and its host-aware conditions (host_cut.h) on hand-worked
// forward/backward graphs: the Stores before the turnaround and the fetches after it add up.
// Unit rates: 1 byte/ns each way, so bytes and ns read alike.
#include <vector>

#include "contender_support.h"
#include "contenders/host_cut.h"
#include "contenders/host_late_fetch.h"
#include "contenders/host_lower_bound.h"
#include "contenders/host_timed_terms.h"
#include "contenders/lower_bounds.h"

namespace hyperplan::contenders_test {
namespace {

using contenders::ReliefCondition;

// A forward pass that keeps two activations for its backward pass: x (10 B) -> f0 -> a (100);
// f1(a) -> b (100); f2(b) -> h (150); loss(h) -> l (10); g2(l, b) -> gb (10); g1(gb, a) -> ga
// (10, output). 10 ns a node, 60 ns in all. Floors 110, 200, 250, 160, 120, 120.
struct ForwardBackward {
  Graph graph;
  HardwareProfile profile = UnitProfile();
  contenders::ContenderContext context;
};

ForwardBackward MakeForwardBackward() {
  ForwardBackward model;
  Graph& graph = model.graph;
  const ValueId x = Input(graph, "x", 10);
  const ValueId a = Bytes(graph, "a", 100);
  const ValueId b = Bytes(graph, "b", 100);
  const ValueId h = Bytes(graph, "h", 150);
  const ValueId l = Bytes(graph, "l", 10);
  const ValueId gb = Bytes(graph, "gb", 10);
  const ValueId ga = Bytes(graph, "ga", 10);
  Op(graph, "f0", "Work", {x}, {a});
  Op(graph, "f1", "Work", {a}, {b});
  Op(graph, "f2", "Work", {b}, {h});
  Op(graph, "loss", "Work", {h}, {l});
  Op(graph, "g2", "Work", {l, b}, {gb});
  Op(graph, "g1", "Work", {gb, a}, {ga});
  MarkOutput(graph, ga);
  model.context = contenders::BuildContenderContext(graph, model.profile, {10, 10, 10, 10, 10, 10});
  return model;
}

contenders::LowerBounds BoundAt(const contenders::ContenderContext& context, int64_t budget) {
  return contenders::ComputeLowerBounds(*context.graph, *context.profile, context.order,
                                        context.node_time_ns, budget, context.persistent);
}

TEST_CASE("cut term: the Stores before the loss and the fetches after it add up") {
  const ForwardBackward model = MakeForwardBackward();
  const contenders::LowerBounds bounds = BoundAt(model.context, 250);
  REQUIRE(bounds.peak_floor_bytes == 250);  // step 2: b + h
  REQUIRE(bounds.room_per_step == std::vector<int64_t>{140, 50, 0, 90, 130, 130});
  // Step 3 (loss): P(3) = U'(3) = {a, b} (h is read at 3), 200 B, 90 of which the room holds:
  // 110 B out before step 3, so it starts at max(C(..2) = 30, 110) = 110 ns; then the loss
  // (10 ns) and 110 B in: max(C(3..) = 30, 10 + 110) = 120 ns. 230 ns. (Step 2: P = U' = {a},
  // no room: max(20, 100) + max(40, 10 + 100) = 210.)
  CHECK(bounds.cut.ns == 230);
  CHECK(bounds.cut.step == 3);
  CHECK(bounds.cut.store_bytes == 110);
  CHECK(bounds.cut.fetch_bytes == 110);
  // Apart, the same bytes give less: the late fetch C(..3) + 110 = 150 ns, the Stores 110 ns.
  CHECK(bounds.late_fetch.ns == 150);
  CHECK(bounds.transfer_ns == 110);
  CHECK(bounds.makespan_ns == 230);
}

TEST_CASE("cut term: room for every activation leaves compute alone") {
  const ForwardBackward model = MakeForwardBackward();
  // 450 B: room(3) = 450 - 160 = 290 holds a and b (200 B), as every other step's room holds
  // what waits there: nothing crosses, 30 + 30 = 60 ns, the compute.
  const contenders::LowerBounds bounds = BoundAt(model.context, 450);
  CHECK(bounds.cut.ns == 60);
  CHECK(bounds.cut.store_bytes == 0);
  CHECK(bounds.cut.fetch_bytes == 0);
  CHECK(bounds.makespan_ns == 60);
  CHECK(contenders::HostCutConditions(model.context, bounds, {}).empty());
}

// MakeForwardBackward with a host part p (step 1) that reads x and makes q (50 B), which the
// device's g2 reads after the loss: x -> f0 -> a; p(x) -> q; f1(a) -> b; f2(b) -> h; loss(h) ->
// l; g2(l, b, q) -> gb; g1(gb, a) -> ga. 10 ns a node. Floors 110, 60, 200, 250, 160, 170, 120:
// at 250 B the room is 140, 190, 50, 0, 90, 80, 130.
struct WithPart {
  Graph graph;
  HardwareProfile profile = UnitProfile();
  contenders::ContenderContext context;
  HostPart part;
};

WithPart MakeWithPart() {
  WithPart model;
  Graph& graph = model.graph;
  const ValueId x = Input(graph, "x", 10);
  const ValueId a = Bytes(graph, "a", 100);
  const ValueId q = Bytes(graph, "q", 50);
  const ValueId b = Bytes(graph, "b", 100);
  const ValueId h = Bytes(graph, "h", 150);
  const ValueId l = Bytes(graph, "l", 10);
  const ValueId gb = Bytes(graph, "gb", 10);
  const ValueId ga = Bytes(graph, "ga", 10);
  Op(graph, "f0", "Work", {x}, {a});
  Op(graph, "p", "Work", {x}, {q});
  Op(graph, "f1", "Work", {a}, {b});
  Op(graph, "f2", "Work", {b}, {h});
  Op(graph, "loss", "Work", {h}, {l});
  Op(graph, "g2", "Work", {l, b, q}, {gb});
  Op(graph, "g1", "Work", {gb, a}, {ga});
  MarkOutput(graph, ga);
  model.context =
      contenders::BuildContenderContext(graph, model.profile, {10, 10, 10, 10, 10, 10, 10});
  model.part.nodes = {model.context.order[1]};
  model.part.first_step = model.part.last_step = 1;
  return model;
}

TEST_CASE("cut term: a host part that makes a kept value relieves its Store, not its fetch") {
  const WithPart model = MakeWithPart();
  const contenders::LowerBounds device = BoundAt(model.context, 250);
  REQUIRE(device.room_per_step == std::vector<int64_t>{140, 190, 50, 0, 90, 80, 130});
  REQUIRE(contenders::PinnedBytesPartsTouch(model.context, {model.part}) == 0);
  // Device only, step 4 (loss): P(4) = U'(4) = {a, q, b}, 250 B, room 90: max(C(..3) = 40, 160)
  // + max(C(4..) = 30, 10 + 160) = 330 ns.
  CHECK(device.cut.ns == 330);
  CHECK(device.cut.step == 4);
  const std::vector<ReliefCondition> conditions =
      contenders::HostCutConditions(model.context, device, {model.part});
  // Step 4: (250 - 90) * r_in / r_out + C(4) r_in + (250 - 90) = 160 + 10 + 160 = 330 B at
  // 1 byte/ns. With p on the host, q is never on the device, so its 50 B need no Store; but the
  // device's g2 reads q after the loss, so it still crosses in: relief 50, not 100.
  // Step 3 (no room): P(3) = U'(3) = {a, q} (b is read at 3), 150 + 10 + 150 = 310 B, relief 50.
  // Step 5: P(5) = U'(5) = {a}, room 80: 20 + 10 + 20 = 50 B, no relief (f0 and g1 are the
  // device's). Steps 0, 2 and 6 leave nothing beyond the room; step 1 is the part's. Ranked by
  // bytes: 4, 3, 5 (with the relief taken: 280, 260, 50, the same).
  REQUIRE(conditions.size() == 3);
  CHECK(conditions[0].step == 4);
  CHECK(conditions[0].bytes == 330);
  CHECK(conditions[0].bytes_per_s == 1'000'000'000);
  CHECK(conditions[0].relief_bytes == std::vector<int64_t>{50});
  CHECK(conditions[1].step == 3);
  CHECK(conditions[1].bytes == 310);
  CHECK(conditions[1].relief_bytes == std::vector<int64_t>{50});
  CHECK(conditions[2].step == 5);
  CHECK(conditions[2].bytes == 50);
  CHECK(conditions[2].relief_bytes == std::vector<int64_t>{0});
  // Solved (host_lower_bound.h): p takes 10 ns on the device, 20 on the host, beside 60 ns of
  // nodes in no part. At x = 1 (p on the host) the first condition is 330 - 50 = 280 ns, above
  // both lanes (device 60, host 20), and the least over x: 280 ns, where x = 0 gives 330.
  contenders::HostBoundInputs inputs;
  inputs.parts = {{10, 20, 0}};
  inputs.fixed_device_ns = 60;
  inputs.relief_conditions = conditions;
  const contenders::HostAwareBound bound = contenders::SolveHostAwareBound(inputs);
  CHECK(bound.relief_ns == 280);
  CHECK(bound.makespan_ns == 280);
  CHECK(bound.relief_binds);
  CHECK(bound.freed_bytes == 50);
}

TEST_CASE("late-fetch conditions: what a host part makes and the device reads later comes in") {
  const WithPart model = MakeWithPart();
  const contenders::LowerBounds device = BoundAt(model.context, 250);
  const std::vector<ReliefCondition> conditions =
      contenders::HostLateFetchConditions(model.context, device, {model.part});
  // Step 4: U'(4) = {a, q, b}, 250 B less the room of 90, after C(..4) = 40 ns of nodes in no
  // part (p's 10 ns is the part's): 160 + 40 = 200 B. q is p's, but g2 on the device reads it
  // after step 4, so it comes in by a hop after step 4 wherever p runs: no relief (it was 50).
  // Step 3: U'(3) = {a, q}, no room, C(..3) = 30: 180 B. Step 5: U'(5) = {a}, room 80, C(..5) =
  // 50: 70 B. Step 2: U'(2) = {q}, 50 B within the room of 50; step 0: U'(0) = {x}, within 140.
  REQUIRE(conditions.size() == 3);
  CHECK(conditions[0].step == 4);
  CHECK(conditions[0].bytes == 200);
  CHECK(conditions[0].relief_bytes == std::vector<int64_t>{0});
  CHECK(conditions[1].step == 3);
  CHECK(conditions[1].bytes == 180);
  CHECK(conditions[1].relief_bytes == std::vector<int64_t>{0});
  CHECK(conditions[2].step == 5);
  CHECK(conditions[2].bytes == 70);
}

TEST_CASE("cut term: no condition where the room holds what waits") {
  const WithPart model = MakeWithPart();
  // 500 B: the least room is 500 - 250 = 250 (step 3), and at most 250 B wait at any step.
  const contenders::LowerBounds device = BoundAt(model.context, 500);
  CHECK(contenders::HostCutConditions(model.context, device, {model.part}).empty());
  CHECK(device.cut.ns == 70);  // the compute
}

}  // namespace
}  // namespace hyperplan::contenders_test
