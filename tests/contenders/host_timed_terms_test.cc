// The host-aware bound's timed terms (contenders/host_timed_terms.h) on the stashed
// activation (contender_support.h), unit rates: every number worked out beside its check.
#include "contenders/host_timed_terms.h"

#include "contender_support.h"
#include "contenders/host_lower_bound.h"
#include "contenders/lower_bounds.h"

namespace hyperplan::contenders_test {
namespace {

// x -> n0 -> a (100 B) -> n1 -> b -> n2 -> c; n3(a, c) -> d. Times 10, 100, 100, 10 ns: compute
// before steps 0..4 is 0, 10, 110, 210, 220. a exists before step 2, is read after it (n3) and
// not at it: V(2) = {a}. Step 2's floor is n2's working set, b and c (20 B): at a 60 B budget
// the room is 40 B, so 60 B of a are off the device during step 2. They went out before step 2
// (then n2 and n3, 110 ns, run): 110 + 60 = 170 ns; and they come back after step 2 (after 210
// ns of compute): 210 + 60 = 270 ns. At steps 1 and 3 a is read; at 0 it is being produced.
TEST_CASE(
    "host timed terms: an activation stashed over a step crosses out before it and back after") {
  const Stash s = MakeStash();
  const HardwareProfile profile = UnitProfile();
  const auto context = contenders::BuildContenderContext(s.graph, profile, s.times);
  const auto device = contenders::ComputeLowerBounds(*context.graph, profile, context.order,
                                                     context.node_time_ns, 60);
  // Steps 0, 1 and 3 need at least 110 B (n0: x and a; n1: a and b; n3: a, c and d): no room.
  REQUIRE(device.room_per_step == std::vector<int64_t>{0, 0, 40, 0});
  const contenders::TimedTerm term = contenders::HostTimedTerm(context, device, {});
  CHECK(term.step == 2);
  CHECK(term.bytes == 60);
  CHECK(term.ns == 270);
}

TEST_CASE("host timed terms: a value a part touches counts for nothing") {
  // With n1 (which reads a) in a part, a may live on the host: V(2) is empty, and step 1 (a
  // part's node) is skipped. Nothing else is ever off the device: no term.
  const Stash s = MakeStash();
  const HardwareProfile profile = UnitProfile();
  const auto context = contenders::BuildContenderContext(s.graph, profile, s.times);
  const auto device = contenders::ComputeLowerBounds(*context.graph, profile, context.order,
                                                     context.node_time_ns, 60);
  HostPart part;
  part.nodes = {1};
  const contenders::TimedTerm term = contenders::HostTimedTerm(context, device, {part});
  CHECK(term.ns == 0);
  CHECK(term.step == -1);
}

TEST_CASE("host timed terms: the bound takes them as a floor") {
  // Parts of 10 ns on either unit and nothing forced: the lanes give 10 ns, the floor 270.
  contenders::HostBoundInputs inputs;
  inputs.parts = {{10, 10, 100}};
  inputs.timed_ns = 270;
  const auto bound = contenders::SolveHostAwareBound(inputs);
  CHECK(bound.makespan_ns == 270);
  CHECK(bound.timed_ns == 270);
}

}  // namespace
}  // namespace hyperplan::contenders_test
