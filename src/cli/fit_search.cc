// Scan, bisection and a look around the flip (see fit_search.h).
#include "fit_search.h"

#include <map>

namespace hyperplan::cli {
namespace {

// Rounds of neighbourhood-then-bisection after the first bisection: each round's answer is
// larger than the last, and a curve that flips at every other value must still end.
constexpr int kMaxNeighbourhoodRounds = 8;

// The next value the scan tries after `value`, capped at `max`.
int64_t NextDoubling(int64_t value, int64_t max) {
  if (value == 0) return 1;
  return value > max / 2 ? max : 2 * value;
}

class Searcher {
 public:
  Searcher(int64_t min, int64_t max, const std::function<Probe(int64_t)>& probe)
      : min_(min), max_(max), probe_(probe) {}

  SearchOutcome Run() {
    const std::optional<int64_t> scanned = Scan();
    if (!scanned) {
      outcome_.first_failing = min_;
      return outcome_;
    }
    // The scan's failing value above its largest pass: bisection discards parts of the
    // bracket below it that the neighbourhood looks at again.
    const std::optional<int64_t> top = NextFailing(*scanned);
    int64_t answer = Bisect(*scanned);
    for (int round = 0; top && round < kMaxNeighbourhoodRounds; ++round) {
      const std::optional<int64_t> further = Neighbourhood(answer, *top);
      if (!further) break;
      answer = Bisect(*further);
    }
    Finish(answer);
    return outcome_;
  }

 private:
  // Tests `value` once; a repeat reads the first result.
  Probe Test(int64_t value) {
    const auto known = results_.find(value);
    if (known != results_.end()) return known->second;
    outcome_.probed.push_back(value);
    return results_[value] = probe_(value);
  }
  bool Passes(int64_t value) { return Test(value) == Probe::kPasses; }

  // Step 1: every doubling up to max, unless failures for good end it. The largest passing.
  std::optional<int64_t> Scan() {
    std::optional<int64_t> largest_passing;
    int failures_for_good = 0;
    for (int64_t value = min_;; value = NextDoubling(value, max_)) {
      const Probe result = Test(value);
      outcome_.scan_top = value;
      if (result == Probe::kPasses) largest_passing = value;
      failures_for_good = result == Probe::kFailsForGood ? failures_for_good + 1 : 0;
      if (value >= max_ || failures_for_good >= kFailuresForGoodToStop) break;
    }
    return largest_passing;
  }

  // The smallest tested value above `value` that failed, if any.
  std::optional<int64_t> NextFailing(int64_t value) const {
    for (auto it = results_.upper_bound(value); it != results_.end(); ++it) {
      if (it->second != Probe::kPasses) return it->first;
    }
    return std::nullopt;
  }

  // Step 2: from a passing `low` to a passing value whose successor fails (or max).
  int64_t Bisect(int64_t low) {
    const std::optional<int64_t> failing = NextFailing(low);
    if (!failing) return low;  // nothing above `low` failed: the scan passed at max
    int64_t high = *failing;
    while (high - low > 1) {
      const int64_t middle = low + (high - low) / 2;
      (Passes(middle) ? low : high) = middle;
    }
    return low;
  }

  // Step 3: values spread over (answer + 1, the bracket's top), untested ones only; the
  // largest that passes, if any.
  std::optional<int64_t> Neighbourhood(int64_t answer, int64_t to) {
    const int64_t from = answer + 1;  // fails
    std::optional<int64_t> largest_passing;
    for (int j = kNeighbourhoodProbes; j >= 1; --j) {
      const auto value = static_cast<int64_t>(from + static_cast<__int128>(to - from) * j /
                                                         (kNeighbourhoodProbes + 1));
      if (value <= from || value >= to || results_.count(value)) continue;
      ++outcome_.neighbourhood_probes;
      if (Passes(value)) {
        largest_passing = value;
        break;  // descending: the first pass is the largest
      }
    }
    return largest_passing;
  }

  void Finish(int64_t answer) {
    outcome_.found = true;
    outcome_.answer = answer;
    if (answer < max_) outcome_.first_failing = answer + 1;
    for (const auto& [value, result] : results_) {
      if (value >= answer) break;
      if (result != Probe::kPasses) outcome_.failing_below_answer = value;
    }
  }

  const int64_t min_;
  const int64_t max_;
  const std::function<Probe(int64_t)>& probe_;
  std::map<int64_t, Probe> results_;  // every value tested
  SearchOutcome outcome_;
};

}  // namespace

SearchOutcome LargestPassing(int64_t min, int64_t max, const std::function<Probe(int64_t)>& probe) {
  return Searcher(min, max, probe).Run();
}

}  // namespace hyperplan::cli
