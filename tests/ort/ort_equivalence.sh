#!/usr/bin/env bash
# ONNX Runtime equivalence of rewritten models.
#
# Each bundled model (models/*.onnx) is planned twice, with a budget of half its no-offload
# peak and in the default no-budget mode, and rewritten with --emit-onnx. Stock ONNX Runtime
# (onnxruntime-node, CPU; tools/ort/run_model.mjs) then runs the original and the rewritten
# model on the same seeded inputs, and every output must be bit-identical (same SHA-256). A
# run without cache ops proves nothing, so each plan must have some. The expected outputs are
# ONNX Runtime's on the original model: an oracle independent of hyperplan.
#
# Usage (from anywhere): tests/ort/ort_equivalence.sh path/to/hyperplan
# Installs onnxruntime-node when missing (tests/ort/ort_setup.sh: npm ci against
# the lock file, GPU binaries skipped), under a lock so parallel runs install it once.
set -euo pipefail
hyperplan=$(realpath "$1")
cd "$(dirname "$0")/../.."

source tests/ort/ort_setup.sh  # onnxruntime-node, $work, json_field and the shared checks

failures=0
for model in models/*.onnx; do
  name=$(basename "$model" .onnx)
  case "$name" in
    *decode*) dims=(--dim batch=1 --dim sequence=1 --dim past_sequence=16) ;;
    *) dims=(--dim batch=1 --dim sequence=8) ;;
  esac
  peak=$(json_field "$("$hyperplan" inspect "$model" "${dims[@]}" --json)" peak_bytes)
  for mode in budget default; do
    flags=()
    [ "$mode" = budget ] && flags=(--budget "$((peak / 2))B")
    out="$work/$name-$mode.onnx"
    summary=$("$hyperplan" plan "$model" "${dims[@]}" "${flags[@]}" -o "$work/$name-$mode.pb" \
      --emit-onnx "$out" --summary-json)
    if ! cache_ops=$(cache_ops "$name ($mode)" "$summary"); then
      failures=$((failures + 1))
      continue
    fi
    report=$(node tools/ort/run_model.mjs "$model" "${dims[@]}" --seed 1 --json --compare "$out")
    verdict=$(identical_verdict "$report")
    echo "$name ($mode, $cache_ops cache ops): $verdict"
    [[ "$verdict" == ok:* ]] || failures=$((failures + 1))
  done
done
exit $((failures > 0))
