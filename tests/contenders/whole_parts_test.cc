// Whole parts (contenders/whole_parts.h): the count split's multiplier search, and the
// host-aware bound split on a class's count, by hand.
#include "contenders/whole_parts.h"

#include <algorithm>
#include <catch2/catch.hpp>

#include "contenders/host_lower_bound.h"

namespace hyperplan::contenders_test {
namespace {

using contenders::HostBoundInputs;
using contenders::SolveHostAwareBound;

// The least of 20 + (20 + shift) s over s in [0, 2] with s >= 1.5: two parts of 20 ns each on
// a lane of 20, at least one and a half of them taken.
long double TwoPartLane(long double shift) {
  return 20 + (20 + shift) * (20 + shift >= 0 ? 1.5L : 2.0L);
}

TEST_CASE("whole parts: the multiplier search bounds each side of the count") {
  // At most 1 part: 20 + 1.5 (20 + l) - l = 50 + l / 2 grows without end (no such placement
  // frees enough): past 1e9 ns at the largest multiplier tried.
  CHECK(contenders::CountedLaneNs(TwoPartLane, 1, true) > 1e9L);
  // At least 2: 20 + 1.5 (20 - l) + 2 l = 50 + l / 2 up to l = 20, then 20 + 2 (20 - l) + 2 l
  // = 60: the lane with both parts, 60 ns.
  CHECK(static_cast<double>(contenders::CountedLaneNs(TwoPartLane, 2, false)) ==
        Approx(60).margin(1e-6));
}

// Two equal parts (device 10, host 30 ns, 100 B freed each) on a chain, 150 B forced over a
// 1 byte/ns link; 5 ns of nodes in no part.
HostBoundInputs TwoEqualParts(int split_class) {
  HostBoundInputs inputs;
  inputs.parts = {{10, 30, 100}, {10, 30, 100}};
  for (auto& part : inputs.parts) part.split_class = split_class;
  inputs.fixed_device_ns = 5;
  inputs.chain = true;
  inputs.transfers = {{150, 1'000'000'000}};
  return inputs;
}

TEST_CASE("whole parts: the host-aware bound counts whole parts of a class") {
  // Relaxed: L = 20 + 20 s with s parts on the host, the link 150 - 100 s: 20 + 20 s = 150 -
  // 100 s at s = 13/12, T* = 41.67, so 42; parts in no class are not split.
  const auto relaxed = SolveHostAwareBound(TwoEqualParts(-1));
  CHECK(relaxed.makespan_ns == 42);
  CHECK(relaxed.split_count == -1);
  // Whole: at most 1 on the host frees 100 B, so the link needs 150 - 100 = 50 ns (the lane
  // 40); at least 2 put the lane at 60. The lesser, 50 ns, is the best whole placement's.
  const auto whole = SolveHostAwareBound(TwoEqualParts(0));
  CHECK(whole.split_class == 0);
  CHECK(whole.split_count == 1);
  CHECK(whole.at_most_ns == 50);
  CHECK(whole.at_least_ns == 60);
  CHECK(whole.whole_parts_ns == 50);
  CHECK(whole.makespan_ns == 50);
}

TEST_CASE("whole parts: a class whose count is whole is not split") {
  // Part 0 in class 0; part 1 in class 1, with 31 ns on the host (21 ns of lane per 100 B,
  // after part 0's 20). The relaxation takes part 0 whole and s of part 1: 40 + 21 s = 50 -
  // 100 s, s = 10/121, T* = 41.7. Class 0's count is whole (1); class 1's is split at 0: with
  // none of it, part 0 frees at most 100 B and the link needs 50 ns; with all of it, L = 41 +
  // 20 x0 and the link 50 - 100 x0 meet at x0 = 0.075, 42.5 ns, so 43: the bound.
  HostBoundInputs inputs = TwoEqualParts(0);
  inputs.parts[1].host_ns = 31;
  inputs.parts[1].split_class = 1;
  const auto bound = SolveHostAwareBound(inputs);
  CHECK(bound.split_class == 1);
  CHECK(bound.split_count == 0);
  CHECK(bound.at_most_ns == 50);
  CHECK(bound.at_least_ns == 43);
  CHECK(bound.makespan_ns == 43);
}

}  // namespace
}  // namespace hyperplan::contenders_test
