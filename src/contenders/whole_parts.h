// Whole parts (issue 31): the host-aware bound's relaxation (host_lower_bound.h) may put a
// fraction of a part on the host; every plan puts whole parts there.
//
// A plan's placement x is in {0, 1}^P, so for any class K of parts (here: one kind, e.g. the
// routed experts) the count of K's parts on the host, sum_{p in K} x_p, is an integer: for any
// integer m, every plan has that count <= m or >= m + 1. The bound's conditions are each a
// relaxation (a fractional knapsack: least lane time over x in [0, 1]^P freeing the bytes the
// transfer terms need); with the count constrained they stay necessary, each within its side,
// so the least T that some side meets is a bound too, and so is the largest such over the
// classes. With m the floor of the relaxation's count it rises where the fraction was what
// met T (Mixtral on rtx-4090: 22 and a fraction of its 32 routed-experts parts on the host at
// 263.4 ms; at most 22 needs 455.7 ms, at least 23 269.9 ms).
// A side is solved by its Lagrangian: for lambda >= 0, every x with sum x <= m has
// lane(x) >= lane(x) + lambda (sum x - m), and the least of the right side over the whole
// relaxation is the knapsack with each host part costing lambda more, less lambda m (for
// sum x >= m + 1: lambda less, plus lambda (m + 1)); sums over K. Any lambda gives a valid lower
// bound on the side's least lane time (weak duality), so the search below need not find the best
// one: a golden-section search over [0, kMostMultiplierNs] of that concave function, a fixed number
// of steps, the largest value seen kept. A side the search finds no T for (it always should: with
// no part on the host the relaxation meets a large enough T) leaves the split out. Cost:
// kMultiplierSteps + 2 knapsacks per side and T, a bisection on T per side and class. Limits: one
// split per class, not a search over several (branch and bound); the device-lane condition stays
// unsplit (weaker, still valid).
#pragma once

#include <algorithm>
#include <cmath>

namespace hyperplan::contenders {

// Multipliers up to 1e12 ns a part: a side that misses its count by a thousandth of a part
// shows a lane time past any T below 1e9 ns, and lane times near 1e12 x a count stay exact to
// well under the bound's 1e-3 ns tolerance in long double; 90 golden-section steps narrow the
// range to 1e12 x 0.618^90 < 1e-6 ns.
inline constexpr long double kMostMultiplierNs = 1e12L;
inline constexpr int kMultiplierSteps = 90;

// The largest, over the multipliers the search tries, of lane_ns(shift) + constant: with
// `at_most`, shift = lambda and constant = -lambda count (sum x <= count); else shift = -lambda
// and constant = lambda count (sum x >= count). `lane_ns(shift)`: the relaxation's least lane
// time with each part on the host costing `shift` ns more (+infinity where it cannot free the
// bytes). A lower bound on the least lane time over the relaxation's x on that side.
template <typename LaneNs>
long double CountedLaneNs(const LaneNs& lane_ns, long double count, bool at_most) {
  auto value = [&](long double lambda) {
    const long double lane = lane_ns(at_most ? lambda : -lambda);
    return std::isinf(lane) ? lane : lane + (at_most ? -lambda : lambda) * count;
  };
  constexpr long double kGolden = 0.6180339887498948482L;
  long double low = 0;
  long double high = kMostMultiplierNs;
  long double best = std::max(value(low), value(high));
  long double left = high - kGolden * (high - low);
  long double right = low + kGolden * (high - low);
  long double left_value = value(left);
  long double right_value = value(right);
  for (int step = 0; step < kMultiplierSteps; ++step) {
    best = std::max({best, left_value, right_value});
    if (left_value < right_value) {
      low = left;
      left = right;
      left_value = right_value;
      right = low + kGolden * (high - low);
      right_value = value(right);
    } else {
      high = right;
      right = left;
      right_value = left_value;
      left = high - kGolden * (high - low);
      left_value = value(left);
    }
  }
  return std::max({best, left_value, right_value});
}

}  // namespace hyperplan::contenders
