#!/usr/bin/env bash
# The GPU end to end, registered only in a build with CUDA: `calibrate --quick` writes a
# measured profile, a bundled model is planned on it under a budget, and `run --backend cuda
# --timed` runs the plan on the GPU and prints its timed: line. Where no GPU is usable,
# calibrate exits 11 with the CUDA error: this test then prints that reason and exits 77,
# which ctest shows as Skipped (never as passed).
# Usage: gpu_test.sh HYPERPLAN (from the source root).
set -uo pipefail
cli=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$cli" calibrate --quick -o "$work/measured.yaml" >"$work/calibrate.txt" 2>"$work/stderr.txt"
status=$?
if [ "$status" -eq 11 ]; then
  echo "skipped: no GPU here: $(cat "$work/stderr.txt")"
  exit 77
fi
if [ "$status" -ne 0 ]; then
  echo "calibrate exited $status: $(cat "$work/stderr.txt")"
  exit 1
fi
cat "$work/calibrate.txt"
set -e
"$cli" plan models/llama-tiny-decode.onnx --hw "$work/measured.yaml" --dim batch=1 \
  --dim sequence=1 --dim past_sequence=16 --budget 200KiB -o "$work/plan.json" -q
"$cli" run "$work/plan.json" --model models/llama-tiny-decode.onnx --hw "$work/measured.yaml" \
  --backend cuda --timed --iterations 3 | tee "$work/run.txt"
grep -q '^timed: simulated_makespan_ns=[0-9]* measured_makespan_ns=[1-9]' "$work/run.txt"
grep -q '^ok: ' "$work/run.txt"
echo "passed: the plan ran on the GPU"
