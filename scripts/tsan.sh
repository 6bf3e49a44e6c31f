#!/usr/bin/env bash
# ThreadSanitizer where hyperplan runs threads: the reference executor (src/executor, one
# thread per stream, the host lane included: tests/executor/host_lane_test.cc runs host-placed
# plans, clean and broken) and the portfolio (src/contenders/portfolio.cc and contender_pool.cc, the
# contenders beside the planner). Kept small: its own build directory, build-tsan, and only those two test
# executables (with the libraries they link), not the tree. The executor's tests include
# hand-broken plans: it must refuse them without a race.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cmake >/dev/null || scripts/install-deps.sh
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHYPERPLAN_WERROR=ON \
  -DCMAKE_CXX_FLAGS="-fsanitize=thread -fno-omit-frame-pointer" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" >/dev/null
cmake --build build-tsan -j"$(nproc)" --target hyperplan_executor_tests hyperplan_contenders_tests
# Each broken plan can fail at one of several accesses depending on the interleaving; run the
# suite a few times so more interleavings are seen.
for round in 1 2 3; do
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
    build-tsan/tests/hyperplan_executor_tests --order rand --rng-seed "$round"
done
# PlanBest runs the contenders on a second thread beside the planner, and then on both
# (contenders/portfolio.h, contender_pool.h).
TSAN_OPTIONS="halt_on_error=1" build-tsan/tests/hyperplan_contenders_tests "portfolio*,contender pool*"
echo "tsan: the executor's and the portfolio's tests pass under ThreadSanitizer"
