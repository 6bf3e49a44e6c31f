#!/usr/bin/env bash
# The reference executor's timing mode on every bundled model (docs/benchmarks.md, "The
# reference executor"): each model planned on supernode without a budget and with half its
# no-offload peak, then `hyperplan run --timed --iterations 5` at each time scale given.
# Prints one line per run: model, plan, scale, steps and streams, and run's timing line.
# Usage: scripts/executor-bench.sh HYPERPLAN SCALE...   (e.g. build-bench/hyperplan 1 100 1000)
set -euo pipefail
cd "$(dirname "$0")/.."
hyperplan=$1
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for model in models/*.onnx; do
  name=$(basename "$model" .onnx)
  case $name in
    *decode*) dims=(--dim batch=1 --dim sequence=1 --dim past_sequence=16) ;;
    *) dims=(--dim batch=1 --dim sequence=8) ;;
  esac
  peak=$("$hyperplan" inspect "$model" --hw supernode "${dims[@]}" --json |
    grep -o '"peak_bytes": *"*[0-9]*' | grep -o '[0-9]*$')
  for mode in default budget; do
    flags=()
    [ "$mode" = budget ] && flags=(--budget "$((peak / 2))B")
    plan="$work/$name-$mode.pb"
    "$hyperplan" plan "$model" --hw supernode "${dims[@]}" "${flags[@]}" -q -o "$plan" >/dev/null
    shape=$("$hyperplan" run "$plan" --model "$model" --hw supernode | head -1 |
      grep -o '[0-9]* steps on [0-9]* streams')
    for scale in "$@"; do
      timing=$("$hyperplan" run "$plan" --model "$model" --hw supernode --iterations 5 --timed \
        --time-scale "$scale" | grep 'timed (')
      echo "$name $mode x$scale, $shape:$timing"
    done
  done
done
