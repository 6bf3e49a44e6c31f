// The LRU expert cache contender (contenders/lru_experts.h): its miss count on routings whose
// picks are certain, by hand. Its plans are verified where the bench builds them (compare's
// MoE rows: VerifyPlan on every contender's plan).
#include "contenders/lru_experts.h"

#include <catch2/catch.hpp>

namespace hyperplan {
namespace {

TEST_CASE("an LRU of experts misses what it cannot hold") {
  // Every token picks experts 0 and 1 (probability 1 each, k = 2 of 8): the replay touches 0
  // then 1 every iteration.
  MoeRouting certain{0, 8, 2, 1, {1, 1, 0, 0, 0, 0, 0, 0}};
  // Two slots hold both after the warm-up: no miss.
  CHECK(contenders::MeanLruMisses(certain, 2) == 0.0);
  // One slot: 0 evicts 1 and 1 evicts 0, so both miss every iteration: 2 misses.
  CHECK(contenders::MeanLruMisses(certain, 1) == 2.0);
  // Uniform routing of one token over 8 experts with 7 slots: a token's 2 picks miss only when
  // one is the expert not cached; never more than the 2 picks.
  const MoeRouting uniform{0, 8, 2, 1, {}};
  const double misses = contenders::MeanLruMisses(uniform, 7);
  CHECK(misses >= 0.0);
  CHECK(misses <= 2.0);
  // With fewer slots more misses on the same routings: the LRU with 1 slot misses at least one
  // of the two distinct picks every iteration.
  CHECK(contenders::MeanLruMisses(uniform, 1) >= 1.0);
  CHECK(contenders::MeanLruMisses(uniform, 1) >= misses);
}

}  // namespace
}  // namespace hyperplan
