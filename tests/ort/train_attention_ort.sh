#!/usr/bin/env bash
# The training step's two attention backwards (hyperplan-gen --form train --train-attention;
# tools/generator/train_backward.h) compute the same step in stock ONNX Runtime
# (onnxruntime-node, CPU): on the same seeded inputs, the recompute form (the backward rebuilds
# each layer's attention probabilities from the stashed queries and keys) gives the stash
# form's outputs (the loss, every updated parameter and both Adam moments) to float rounding.
# The two run the same ops on the same inputs, so any difference is a wrong recompute: a
# missing scale or mask, the wrong keys, or probabilities of another layer move the gradients,
# and so the updated weights, by far more than the 1e-6 allowed here for summation order.
# Each form also plans, verifies and runs in the reference executor at half its no-offload peak.
#
# Usage (from anywhere): tests/ort/train_attention_ort.sh path/to/hyperplan path/to/hyperplan-gen
# Installs onnxruntime-node when missing (tests/ort/ort_setup.sh).
set -euo pipefail
hyperplan=$(realpath "$1")
gen=$(realpath "$2")
cd "$(dirname "$0")/../.."

source tests/ort/ort_setup.sh  # onnxruntime-node, $work, json_field and the shared checks

dims=(--dim batch=1 --dim sequence=8)
for form in stash recompute; do
  "$gen" --preset tiny --form train --train-attention "$form" --check \
    -o "$work/$form.onnx" >/dev/null
done

# The outputs compared, and the largest element-wise difference over them (token ids below
# the tiny preset's vocabulary of 512).
report=$(node tools/ort/run_model.mjs "$work/stash.onnx" "${dims[@]}" --vocab 512 --seed 1 --json \
  --compare "$work/recompute.onnx")
read -r outputs diff < <(node -e 'const r = JSON.parse(process.argv[1]);
  const o = r.compare.outputs;
  const bad = o.filter(x => x.missing || !x.same_shape);
  console.log(o.length, bad.length > 0 || o.length === 0 ? "Infinity"
              : Math.max(...o.map(x => x.max_abs_diff ?? 0)));' "$report")
failures=0
# The tiny step's outputs: the loss, and per parameter (4 layers x 9, the embedding, the final
# norm, the LM head: 39) its update and two moments: 1 + 3 * 39 = 118.
if [ "$outputs" -ne 118 ]; then
  echo "FAIL: $outputs outputs compared, 118 expected" >&2
  failures=$((failures + 1))
fi
if node -e 'process.exit(Number(process.argv[1]) <= 1e-6 ? 0 : 1)' "$diff"; then
  echo "recompute: agrees with stash over $outputs outputs (max |diff| $diff)"
else
  echo "FAIL recompute: max |diff| $diff from stash" >&2
  failures=$((failures + 1))
fi

for form in stash recompute; do
  model="$work/$form.onnx"
  peak=$(json_field "$("$hyperplan" inspect "$model" "${dims[@]}" --json)" peak_bytes)
  if "$hyperplan" plan "$model" "${dims[@]}" --budget "$((peak / 2))B" -o "$work/$form.pb" \
       >/dev/null && verify_and_run "$work/$form.pb" "$model"; then
    echo "$form: plans at half peak, verifies, runs"
  else
    echo "FAIL $form: plan, verify or run failed" >&2
    failures=$((failures + 1))
  fi
done
exit $((failures > 0))
