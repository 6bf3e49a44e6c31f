// The states the uniform retries resume from (uniform_checkpoints.h): the nearest at or above a
// target, and the ones a bracket leaves useful. The checkpoints here hold no state; each is
// told apart by the target it says it was recorded at.
#include "planner/uniform_checkpoints.h"

#include <catch2/catch.hpp>

using namespace hyperplan::planner;

namespace {

RefineCheckpoint Marked(int64_t target_bytes) {
  RefineCheckpoint checkpoint;
  checkpoint.uniform_target_bytes = target_bytes;
  return checkpoint;
}

// The target the checkpoint From returns was recorded at; -1 for none.
int64_t FromTarget(const UniformCheckpoints& held, int64_t target_bytes) {
  const RefineCheckpoint* from = held.From(target_bytes);
  return from == nullptr ? -1 : *from->uniform_target_bytes;
}

}  // namespace

TEST_CASE("uniform checkpoints: the lowest recorded target at or above the new one") {
  UniformCheckpoints held;
  CHECK(FromTarget(held, 50) == -1);  // nothing recorded
  held.Add(100, Marked(100));
  held.Add(60, Marked(60));
  held.Add(80, Marked(80));
  CHECK(held.size() == 3);
  CHECK(FromTarget(held, 70) == 80);   // 80 and 100 are at or above 70: the lower
  CHECK(FromTarget(held, 80) == 80);   // a state at the target itself: the refine stops there
  CHECK(FromTarget(held, 81) == 100);  // only 100 is at or above 81
  CHECK(FromTarget(held, 10) == 60);
  CHECK(FromTarget(held, 101) == -1);  // a higher target's rounds stop before every state
  held.Add(80, Marked(999));           // the same target again: kept as first recorded
  CHECK(held.size() == 3);
  CHECK(FromTarget(held, 75) == 80);
}

TEST_CASE("uniform checkpoints: a bracket keeps the states above its fit up to its miss") {
  UniformCheckpoints held;
  for (int64_t target : {100, 90, 80, 60}) held.Add(target, Marked(target));
  TargetBracket bracket;
  bracket.Record(100, false);
  bracket.Record(90, false);  // miss 90: 100 serves no try below 90
  held.KeepWithin(bracket);
  CHECK(held.size() == 3);  // 90, 80, 60
  CHECK(FromTarget(held, 95) == -1);
  bracket.Record(60, true);  // fit 60: the probes lie in (60, 90)
  bracket.Record(80, false);
  held.KeepWithin(bracket);  // 60 is at the fit, 90 above the miss at 80
  CHECK(held.size() == 1);
  CHECK(FromTarget(held, 70) == 80);
  bracket.Record(70, true);  // fit 70, miss 80: 80 still serves (70, 80)
  held.KeepWithin(bracket);
  CHECK(held.size() == 1);
  CHECK(FromTarget(held, 75) == 80);
}
