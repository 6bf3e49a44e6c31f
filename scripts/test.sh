#!/usr/bin/env bash
# README command 2: install what is missing, build the tests with -Wall -Wextra -Werror under
# AddressSanitizer + UndefinedBehaviorSanitizer, and run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# The Release executables of README command 1 (scripts/run.sh): the README test runs the
# README's commands with them, as a user would.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DHYPERPLAN_TESTS=OFF >/dev/null
cmake --build build -j"$(nproc)" --target hyperplan hyperplan-gen
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Debug -DHYPERPLAN_WERROR=ON \
  -DHYPERPLAN_SANITIZE=ON -DHYPERPLAN_README_BUILD_DIR="$PWD/build" >/dev/null
cmake --build build-test -j"$(nproc)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-test --output-on-failure -j"$(nproc)"
