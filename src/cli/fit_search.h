// The search behind `hyperplan fit --grow`: the largest value in [min, max] at which a test
// passes, when passing is not monotone in the value.
//
// It is not: a 70B decode on h200-sxm with --max-overhead 20% misses at 4 tokens (the weights'
// streaming is not hidden behind so little compute), passes at 64 and misses again at 864, so
// stopping at the first failure answers 3. The search runs in three steps:
// 1. Scan: every doubling from `min` (min, 2 min, 4 min, ... then `max`; from 0 the next is 1),
//    past failures, up to `max`, unless two values in a row fail for good (the caller's word:
//    over budget, which a larger value does not cure).
// 2. Bisect: between the largest scanned value that passes and the next scanned value (which
//    fails), to a passing value whose successor fails.
// 3. Neighbourhood: kNeighbourhoodProbes values spread evenly over the part of that interval
//    above the flip; if one passes, bisect again from the largest that did, and repeat.
// Cost: the tests, each value at most once: about log2(max / min) + 2 for the scan (fewer where
// it stops), log2 of the bracket for each bisection, kNeighbourhoodProbes per neighbourhood.
// From 1 to 16M with the answer near 1000: 25 + 9 + 4 = 38 tests, against 20 for doubling and
// bisection that stop at the first failure. Limits: a passing stretch narrower than the scan's
// spacing that lies wholly between two failing doublings, or between the neighbourhood's
// probes, is not seen (`fit --sweep` with a step shows the whole curve); two failures for good
// in a row end the scan, so a passing stretch more than 2x above an over-budget value is not
// looked for.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace hyperplan::cli {

inline constexpr int kNeighbourhoodProbes = 4;
inline constexpr int kFailuresForGoodToStop = 2;

enum class Probe {
  kPasses,
  kFails,         // a larger value may pass again (e.g. the overhead target was missed)
  kFailsForGood,  // larger values are expected to fail too (e.g. over budget)
};

struct SearchOutcome {
  bool found = false;  // some value probed passes
  int64_t answer = 0;  // the largest passing value found (when found)
  // A probed value that fails: answer + 1 when found (unset when the answer is `max`), else the
  // smallest value probed.
  std::optional<int64_t> first_failing;
  // The largest failing value probed below the answer: set when the curve was seen not to be
  // monotone (a value fails, a larger one passes).
  std::optional<int64_t> failing_below_answer;
  int64_t scan_top = 0;  // the largest value the scan reached (`max` unless it stopped early)
  int neighbourhood_probes = 0;
  std::vector<int64_t> probed;  // every value tested, in order
};

// `probe` is called once per value tested; it may throw, which ends the search.
SearchOutcome LargestPassing(int64_t min, int64_t max, const std::function<Probe(int64_t)>& probe);

}  // namespace hyperplan::cli
