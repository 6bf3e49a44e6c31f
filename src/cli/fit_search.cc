// Doubling, then bisection (see fit_search.h).
#include "fit_search.h"

namespace hyperplan::cli {
namespace {

// The next value the doubling tries after `low`, capped at `max`.
int64_t NextBracket(int64_t low, int64_t max) {
  if (low == 0) return 1;
  return low > max / 2 ? max : 2 * low;
}

}  // namespace

SearchOutcome LargestPassing(int64_t min, int64_t max, const std::function<bool(int64_t)>& passes) {
  SearchOutcome outcome;
  auto test = [&](int64_t value) {
    outcome.probed.push_back(value);
    return passes(value);
  };
  if (!test(min)) {
    outcome.first_failing = min;
    return outcome;
  }
  outcome.found = true;
  int64_t low = min;  // passes
  int64_t high = 0;   // fails, once found
  bool bracketed = false;
  while (low < max && !bracketed) {
    const int64_t next = NextBracket(low, max);
    if (test(next)) {
      low = next;
    } else {
      high = next;
      bracketed = true;
    }
  }
  if (bracketed) {
    while (high - low > 1) {
      const int64_t middle = low + (high - low) / 2;
      (test(middle) ? low : high) = middle;
    }
    outcome.first_failing = high;
  }
  outcome.answer = low;
  return outcome;
}

}  // namespace hyperplan::cli
