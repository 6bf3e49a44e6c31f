// The search behind `hyperplan fit --grow`: the largest value in [min, max] at which a monotone
// test passes, testing few values.
//
// Doubling brackets the answer from `min` (min, 2 min, 4 min, ... capped at max; from 0 the
// next is 1) until a value fails or `max` passes; bisection then closes the bracket to one
// value. The answer A costs about 2 log2(A / min) + 2 tests, against A - min for a scan; no
// value is tested twice. Cost: the tests. Limits: the test must be monotone (pass up to a
// point, fail after it); where it is not, the answer is some value that passes next to one
// that fails, not necessarily the largest that passes (`fit --sweep` shows the whole curve).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace hyperplan::cli {

struct SearchOutcome {
  bool found = false;                    // `min` passes
  int64_t answer = 0;                    // the largest passing value found (when found)
  std::optional<int64_t> first_failing;  // answer + 1 (or min when nothing passes); unset when
                                         // `max` passes
  std::vector<int64_t> probed;           // every value tested, in order
};

// `passes` is called once per value tested; it may throw, which ends the search.
SearchOutcome LargestPassing(int64_t min, int64_t max, const std::function<bool(int64_t)>& passes);

}  // namespace hyperplan::cli
