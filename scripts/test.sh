#!/usr/bin/env bash
# README command 2: install what is missing, build the tests with -Wall -Wextra -Werror under
# AddressSanitizer + UndefinedBehaviorSanitizer, and run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Debug -DHYPERPLAN_WERROR=ON \
  -DHYPERPLAN_SANITIZE=ON >/dev/null
cmake --build build-test -j"$(nproc)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-test --output-on-failure -j"$(nproc)"
