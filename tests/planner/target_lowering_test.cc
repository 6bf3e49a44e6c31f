// The budget loop (planner/target_lowering.h), shared by the planner's uniform retries and the
// contenders' FitToBudget: targets worked out by hand beside each assertion.
#include "planner/target_lowering.h"

#include <catch2/catch.hpp>
#include <vector>

using namespace hyperplan::planner;

TEST_CASE("the lowered target takes the live peak, less the arena's excess") {
  // min(1000, 900) - max(1, 1100 - 1000) = 900 - 100 = 800.
  CHECK(LoweredTarget(1000, {900, 1100, false}, 1000) == 800);
  // The target is already under the live peak: min(700, 900) - (1050 - 1000) = 650.
  CHECK(LoweredTarget(700, {900, 1050, false}, 1000) == 650);
  // A try within the budget still lowers by one byte: min(1000, 600) - max(1, -200) = 599.
  CHECK(LoweredTarget(1000, {600, 800, false}, 1000) == 599);
}

TEST_CASE("the loop retries at lowered targets until a try fits") {
  // Budget 1000; each try's arena is its target + 150, its live peak the target itself.
  std::vector<int64_t> targets;
  LowerTargetUntilFit(1000, {1000, 1150, false}, 5, 0, [&](int64_t target) {
    targets.push_back(target);
    return TargetTry{target, target + 150, target + 150 <= 1000};
  });
  // 1000 - 150 = 850 (arena 1000 fits): one retry.
  CHECK(targets == std::vector<int64_t>{850});
}

TEST_CASE("the loop stops after its retries or under its least target") {
  // Nothing ever fits: an arena 400 B over whatever the target.
  std::vector<int64_t> targets;
  auto never_fits = [&](int64_t target) {
    targets.push_back(target);
    return TargetTry{target, 1400, false};
  };
  LowerTargetUntilFit(1000, {1000, 1400, false}, 3, 0, never_fits);
  // 1000 - 400 = 600, 600 - 400 = 200, 200 - 400 = -200 < 0: stops before the third.
  CHECK(targets == std::vector<int64_t>{600, 200});
  targets.clear();
  LowerTargetUntilFit(1000, {1000, 1200, false}, 3, 1, never_fits);
  // 1000 - 200 = 800, then each try is 400 over: 400, 0 < 1 stops (the planner's floor).
  CHECK(targets == std::vector<int64_t>{800, 400});
  targets.clear();
  LowerTargetUntilFit(1000, {1000, 1000, true}, 3, 0, never_fits);
  CHECK(targets.empty());  // the first try fits: no retry
}

TEST_CASE("the bracket keeps the highest fit and the lowest miss above it") {
  TargetBracket bracket;
  bracket.Record(1000, false);  // round 0 at the budget
  bracket.Record(850, false);
  CHECK(bracket.miss_bytes == 850);  // min(1000, 850)
  CHECK(bracket.fit_bytes == -1);
  bracket.Record(700, true);
  bracket.Record(600, false);  // under the fit: says nothing of the targets above it
  CHECK(bracket.fit_bytes == 700);
  CHECK(bracket.miss_bytes == 850);
}

TEST_CASE("raising bisects between the fit and the miss") {
  // Targets up to 780 fit; fit 700, miss 1000.
  std::vector<int64_t> probed;
  auto fits_to_780 = [&](int64_t target) {
    probed.push_back(target);
    return target <= 780;
  };
  RaiseTargetWhileFits({700, 1000}, 3, 0, fits_to_780);
  // 700 + 300 / 2 = 850 misses; 700 + 150 / 2 = 775 fits; 775 + 75 / 2 = 812 misses.
  CHECK(probed == std::vector<int64_t>{850, 775, 812});
  probed.clear();
  RaiseTargetWhileFits({700, 1000}, 5, 40, fits_to_780);
  // 850, 775, then the bracket [775, 850) is 75 wide: 775 + 37 = 812 misses, [775, 812) is 37
  // wide, under 40: stops after three of its five probes.
  CHECK(probed == std::vector<int64_t>{850, 775, 812});
}

TEST_CASE("raising needs a fit and a miss above it") {
  std::vector<int64_t> probed;
  auto record = [&](int64_t target) {
    probed.push_back(target);
    return true;
  };
  RaiseTargetWhileFits({-1, 1000}, 3, 0, record);      // nothing fit
  RaiseTargetWhileFits({700, kNoMiss}, 3, 0, record);  // nothing missed
  RaiseTargetWhileFits({700, 701}, 3, 0, record);      // no target between them
  CHECK(probed.empty());
  RaiseTargetWhileFits({700, 1000}, 2, 0, record);
  // Every probe fits: 850, then 850 + 150 / 2 = 925; two probes.
  CHECK(probed == std::vector<int64_t>{850, 925});
}
