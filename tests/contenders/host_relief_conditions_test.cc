// The host-aware bound's relief conditions (contenders/relief_condition.h): the write-back and
// late-fetch terms under a host placement (host_write_back.h, host_late_fetch.h) on a hand-worked
// loop, and the bound solving them by hand. Unit rates: 1 byte/ns each way.
#include <vector>

#include "contender_support.h"
#include "contenders/host_late_fetch.h"
#include "contenders/host_lower_bound.h"
#include "contenders/host_timed_terms.h"
#include "contenders/host_write_back.h"
#include "contenders/lower_bounds.h"
#include "support/routed_moe.h"

namespace hyperplan::contenders_test {
namespace {

using contenders::ReliefCondition;

// lower_bounds_test.cc's loop: x (10 B) -> n0 -> a (50 B); n1(x) -> b (100 B); n2(a, b) -> c
// (10 B); n3(m, c) -> m_new, written into m (100 B) in place. Times 10, 40, 10, 20 ns; at a
// 160 B budget the room per step is 100, 50, 0, 50 (floors 60, 110, 160, 110). The update n3 is
// the one part (as an optimizer update is).
struct UpdateLoop {
  Graph graph;
  HardwareProfile profile = UnitProfile();
  contenders::ContenderContext context;
  contenders::LowerBounds device;
  HostPart update;
};

UpdateLoop MakeUpdateLoop() {
  UpdateLoop loop;
  Graph& graph = loop.graph;
  const ValueId x = Input(graph, "x", 10);
  const ValueId m = Input(graph, "m", 100);
  const ValueId a = Bytes(graph, "a", 50);
  const ValueId b = Bytes(graph, "b", 100);
  const ValueId c = Bytes(graph, "c", 10);
  const ValueId m_new = Bytes(graph, "m_new", 100);
  Op(graph, "n0", "Work", {x}, {a});
  Op(graph, "n1", "Work", {x}, {b});
  Op(graph, "n2", "Work", {a, b}, {c});
  Op(graph, "n3", "Update", {m, c}, {m_new});
  MarkOutput(graph, m_new);
  loop.context = contenders::BuildContenderContext(graph, loop.profile, {10, 40, 10, 20},
                                                   LoopSpec{true, {{m_new, m}}});
  loop.device =
      contenders::ComputeLowerBounds(*loop.context.graph, loop.profile, loop.context.order,
                                     loop.context.node_time_ns, 160, loop.context.persistent);
  loop.update.nodes = {loop.context.order[3]};
  loop.update.first_step = loop.update.last_step = 3;
  return loop;
}

TEST_CASE("host relief conditions: the write-back term relieves what a host update writes") {
  const UpdateLoop loop = MakeUpdateLoop();
  REQUIRE(loop.device.room_per_step == std::vector<int64_t>{100, 50, 0, 50});
  REQUIRE(loop.device.write_back.step == 1);  // 170 ns (lower_bounds_test.cc)
  REQUIRE(loop.device.late_fetch.step == 2);  // 160 ns
  // Every value here can leave (m is homed, the rest have a store tier): room' = room.
  REQUIRE(contenders::PinnedBytesPartsTouch(loop.context, {loop.update}) == 0);
  const std::vector<ReliefCondition> conditions =
      contenders::HostWriteBackConditions(loop.context, loop.device, {loop.update});
  REQUIRE(conditions.size() == 2);
  // Step 1 (n1, in no part): m, written at step 3 (after step 1), and a, stored after step 0
  // and read at step 2, are off the device but for the room, 50 B: 100 + 50 - 50 = 100 B, after
  // C(1..3) = 40 + 10 = 50 ns of nodes in no part (n3's 20 ns is the part's): 100 + 50 * 1 =
  // 150 B at 1 byte/ns, of which the update's 100 B of m go when it runs on the host. At x = 0,
  // 150 ns: the device-only term's 170 less n3's 20.
  CHECK(conditions[0].step == 1);
  CHECK(conditions[0].bytes == 150);
  CHECK(conditions[0].bytes_per_s == 1'000'000'000);
  CHECK(conditions[0].relief_bytes == std::vector<int64_t>{100});
  // Step 2 (room 0): m alone (a and b are read at step 2), C(2..3) = 10: 100 + 10 = 110 B.
  CHECK(conditions[1].step == 2);
  CHECK(conditions[1].bytes == 110);
  CHECK(conditions[1].relief_bytes == std::vector<int64_t>{100});
}

TEST_CASE("host relief conditions: the late-fetch term relieves what only host parts read") {
  const UpdateLoop loop = MakeUpdateLoop();
  const std::vector<ReliefCondition> conditions =
      contenders::HostLateFetchConditions(loop.context, loop.device, {loop.update});
  // Step 0: U'(0) = {m} (x is read at 0), 100 B, within the room of 100: no condition. Step 3 is
  // the part's. Step 2: U'(2) = {m} (a, b read at 2), room 0, after C(..2) = 10 + 40 + 10 = 60 ns:
  // 100 + 60 = 160 B; only n3 (the part) reads m after step 2, so all 100 B are relieved. Step 1:
  // U'(1) = {a, m} = 150 B less the room of 50, after C(..1) = 50 ns: 100 + 50 = 150 B; a is
  // read after step 1 by n2 (in no part), so only m is relieved. Ranked with all relief taken:
  // step 2 (160 - 100 = 60) before step 1 (150 - 100 = 50).
  REQUIRE(conditions.size() == 2);
  CHECK(conditions[0].step == 2);
  CHECK(conditions[0].bytes == 160);
  CHECK(conditions[0].relief_bytes == std::vector<int64_t>{100});
  CHECK(conditions[1].step == 1);
  CHECK(conditions[1].bytes == 150);
  CHECK(conditions[1].relief_bytes == std::vector<int64_t>{100});
}

TEST_CASE("host relief conditions: a value two parts read is relieved half by each") {
  // x (10 B) -> n0 -> v (100 B); n1(x) -> b (300 B); n2(b) -> e (10 B); n3(v, e) -> c (10 B),
  // part A; n4(v, c) -> d (10 B, output), part B. 10 ns a step. Floors 110, 310, 310, 120, 120:
  // at a 310 B budget the room is 0 at steps 1 and 2.
  Graph graph;
  const ValueId x = Input(graph, "x", 10);
  const ValueId v = Bytes(graph, "v", 100);
  const ValueId b = Bytes(graph, "b", 300);
  const ValueId e = Bytes(graph, "e", 10);
  const ValueId c = Bytes(graph, "c", 10);
  const ValueId d = Bytes(graph, "d", 10);
  Op(graph, "n0", "Work", {x}, {v});
  Op(graph, "n1", "Work", {x}, {b});
  Op(graph, "n2", "Work", {b}, {e});
  Op(graph, "n3", "Work", {v, e}, {c});
  Op(graph, "n4", "Work", {v, c}, {d});
  MarkOutput(graph, d);
  const HardwareProfile profile = UnitProfile();
  const auto context = contenders::BuildContenderContext(graph, profile, {10, 10, 10, 10, 10});
  const auto device = contenders::ComputeLowerBounds(*context.graph, profile, context.order,
                                                     context.node_time_ns, 310);
  REQUIRE(device.room_per_step == std::vector<int64_t>{200, 0, 0, 190, 190});
  HostPart a;
  a.nodes = {context.order[3]};
  a.first_step = a.last_step = 3;
  HostPart b_part;
  b_part.nodes = {context.order[4]};
  b_part.first_step = b_part.last_step = 4;
  const std::vector<ReliefCondition> conditions =
      contenders::HostLateFetchConditions(context, device, {a, b_part});
  // U'(1) = U'(2) = {v} (x is read at 1, b at 2), 100 B over no room, read after them only by
  // the two parts: v stays off the device only with both on the host, so each relieves 50 B.
  // Step 2: after C(..2) = 30 ns, 100 + 30 = 130 B; step 1: 100 + 20 = 120 B. Ranked with all
  // relief taken: step 2 (30) before step 1 (20). Step 0 has nothing waiting (x is read at 0).
  REQUIRE(conditions.size() == 2);
  CHECK(conditions[0].step == 2);
  CHECK(conditions[0].bytes == 130);
  CHECK(conditions[0].relief_bytes == std::vector<int64_t>{50, 50});
  CHECK(conditions[1].step == 1);
  CHECK(conditions[1].bytes == 120);
  CHECK(conditions[1].relief_bytes == std::vector<int64_t>{50, 50});
}

TEST_CASE("host relief conditions: the bound takes each over its own relaxation") {
  // One part (device 20, host 200 ns) beside 60 ns of nodes in no part, nothing forced; the
  // conditions 150 - 100 x and 110 - 100 x bytes at 1 byte/ns.
  contenders::HostBoundInputs inputs;
  inputs.parts = {{20, 200, 0}};
  inputs.fixed_device_ns = 60;
  inputs.relief_conditions = {{150, 1'000'000'000, {100}, 1}, {110, 1'000'000'000, {100}, 2}};
  const auto bound = contenders::SolveHostAwareBound(inputs);
  // Without them: the device lane, 60 + 20 (1 - x) <= T with 200 x <= T: x = (80 - T) / 20,
  // 10 (80 - T) <= T, T >= 800 / 11 = 72.7, so 73 ns. The first condition: 150 - 100 x <= T
  // with the host lane 200 x <= T: x = 0.5, T = 100 (the device lane, 70 ns there, holds).
  // The second: 110 - 100 x = 200 x at x = 11 / 30, T = 73.3, so 74 ns. The largest, 100 ns.
  CHECK(bound.relief_ns == 100);
  CHECK(bound.makespan_ns == 100);
  CHECK(bound.relief_binds);
  CHECK(bound.host_parts == Approx(0.5).margin(1e-4));  // the solver's 0.001-byte slack
  // The placement of the binding condition: half the update on the host relieves 50 B.
  CHECK(bound.freed_bytes == 50);
  inputs.relief_conditions.clear();
  const auto without = contenders::SolveHostAwareBound(inputs);
  CHECK(without.makespan_ns == 73);
  CHECK_FALSE(without.relief_binds);
}

TEST_CASE("host relief conditions: a routed operand comes back at its touched experts' bytes") {
  // support/routed_moe.h: route (5000 ns) -> router; moe (3000 ns) reads the stacked fc1, fc2,
  // fc3 (16384 B each, 2048 B an expert). One token, top 2 of 8: each expert is touched with
  // chance 1 - (1 - 2/8)^1 = 1/4, so a fetch after route moves 8 * 1/4 * 2048 = 4096 B of each
  // in expectation, not 16384. Budget 8192 B, no parts.
  const testing::RoutedMoe moe;
  const contenders::ContenderContext context = contenders::BuildContenderContext(
      moe.graph, moe.profile, {testing::RoutedMoe::kRouteNs, testing::RoutedMoe::kMoeNs});
  const contenders::LowerBounds device = contenders::ComputeLowerBounds(
      *context.graph, moe.profile, context.order, context.node_time_ns, 8192, context.persistent);
  const std::vector<ReliefCondition> conditions =
      contenders::HostLateFetchConditions(context, device, {});
  // Step 0 (route): U'(0) = {fc1, fc2, fc3} (x is read at 0), 3 * 4096 = 12288 B, less the room
  // at step 0, after C(..0) = 5000 ns at 1 byte/ns: 12288 - room(0) + 5000 B. Step 1 (moe) has
  // nothing read after it. Whole operands would give 49152 - room(0) + 5000.
  const int64_t room = device.room_per_step[0];
  REQUIRE(room < 12288);
  REQUIRE(conditions.size() == 1);
  CHECK(conditions[0].step == 0);
  // The touch chance, -expm1(log1p(-1/4)) in double, may land a hair under 1/4 and the bytes
  // are rounded down (lower only): each operand 4095 or 4096 B.
  CHECK(conditions[0].bytes <= 12288 - room + 5000);
  CHECK(conditions[0].bytes >= 3 * 4095 - room + 5000);
}

}  // namespace
}  // namespace hyperplan::contenders_test
