#!/usr/bin/env bash
# Digests of what planning writes, to show a refactoring moved no plan: `hyperplan plan` on
# every bundled model x every shipped profile x {no budget, 768KiB, 2MiB, 8MiB} (the plan .pb,
# the emitted .onnx and the summary JSON with its paths and wall times taken out), then every
# `hyperplan-bench compare` cell's plan sha256 (set SKIP_COMPARE=1 to skip that part: minutes).
# Run it before and after a change, then `diff` the two OUT/bundled.txt and OUT/compare.txt.
# usage: scripts/plan-digests.sh BUILD_DIR OUT_DIR   (a Release build with hyperplan-bench)
set -uo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "$1")
mkdir -p "$2/plans"
out=$(realpath "$2")
: > "$out/bundled.txt"
for model in models/*.onnx; do
  for profile in configs/*.yaml; do
    for budget in none 768KiB 2MiB 8MiB; do
      name="$(basename "$model" .onnx)-$(basename "$profile" .yaml)-$budget"
      flags=(--dim batch=1 --dim sequence=1 --dim past_sequence=32)
      [ "$budget" != none ] && flags+=(--budget "$budget")
      "$build/hyperplan" plan "$model" --hw "$profile" "${flags[@]}" -o "$out/plans/$name.pb" \
        --emit-onnx "$out/plans/$name.onnx" --summary-json \
        >"$out/plans/$name.summary.json" 2>"$out/plans/$name.err"
      rc=$?
      summary=$(sed -E "s#$out#OUT#g; s/\"(planning|wall)[A-Za-z_]*\":[^,}]*//g" \
                  "$out/plans/$name.summary.json" | sha256sum | cut -c1-16)
      echo "$name rc=$rc $(sha256sum <"$out/plans/$name.pb" 2>/dev/null | cut -c1-16)" \
           "$(sha256sum <"$out/plans/$name.onnx" 2>/dev/null | cut -c1-16) $summary" \
           >>"$out/bundled.txt"
    done
  done
done
[ -n "${SKIP_COMPARE:-}" ] && exit 0
"$build/tools/hyperplan-bench" compare --plan-digests --models-dir "$build/bench-models" \
  >"$out/compare.txt"
