#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan, build-fuzz/) and runs each for SECONDS
# (default 60) on its seed corpus and its regressions, one process at a time. A crash, sanitizer
# report, timeout or internal error stops the run with the reproducer in build-fuzz/findings/.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]   (targets: onnx-import profile-yaml plan-file
# cli-flags expert-stats; default all). docs/fuzzing.md says how to read the output and keep a reproducer.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=(onnx-import profile-yaml plan-file cli-flags expert-stats); fi

scripts/install-deps.sh
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DHYPERPLAN_FUZZ=ON -DHYPERPLAN_TESTS=OFF >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target "${targets[@]/#/hyperplan-fuzz-}"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
for target in "${targets[@]}"; do
  # New inputs go to a scratch corpus, so the seeds in the tree stay as they are.
  work="build-fuzz/corpus/${target}"
  findings="build-fuzz/findings/${target}"
  mkdir -p "${work}" "${findings}"
  # A target no fuzzer has failed on yet has no regressions directory (libFuzzer refuses a
  # missing one).
  inputs=("${work}" "tests/fuzz/corpus/${target}")
  [ -d "tests/fuzz/regressions/${target}" ] && inputs+=("tests/fuzz/regressions/${target}")
  echo "fuzz: ${target} for ${seconds} s"
  build-fuzz/tests/fuzz/hyperplan-fuzz-"${target}" -max_total_time="${seconds}" -timeout=10 \
    -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="${findings}/" "${inputs[@]}"
done
