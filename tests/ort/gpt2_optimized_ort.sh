#!/usr/bin/env bash
# ONNX Runtime equivalence of the generator's GPT-2 form with the transformer optimizer's ops
# (EmbedLayerNormalization, com.microsoft Attention with a packed past, SkipLayerNormalization,
# FastGelu, BiasGelu; ONNX Runtime has each on CPU). The model is planned at half its
# no-offload peak and rewritten with --emit-onnx; stock ONNX Runtime (tools/ort/run_model.mjs)
# runs the original and the rewritten model on the same seeded inputs, and every output must be
# bit-identical; then both run three decode steps, each feeding its own present_<i> back as
# past_<i> (tests/ort/loop_steps.mjs, pairs as the plan's loop_state), every output of every
# step bit-identical. The model passes hyperplan-gen --check (the optimizer ops' schemas are
# registered), imports with no value of unknown size (inspect's unknown_size_values), and the
# plan is made without --allow-unknown.
#
# Usage (from anywhere): tests/ort/gpt2_optimized_ort.sh path/to/hyperplan path/to/hyperplan-gen
# Installs onnxruntime-node when missing (tests/ort/ort_setup.sh).
set -euo pipefail
hyperplan=$(realpath "$1")
gen=$(realpath "$2")
cd "$(dirname "$0")/../.."

source tests/ort/ort_setup.sh  # onnxruntime-node, $work, json_field

model="$work/gpt2-optimized.onnx"
"$gen" --preset tiny --form gpt2-optimized --check -o "$model" >/dev/null
dims=(--dim batch=1 --dim sequence=1 --dim past_sequence=16)
inspected=$("$hyperplan" inspect "$model" "${dims[@]}" --json)
peak=$(json_field "$inspected" peak_bytes)
unknown=$(node -e 'console.log(JSON.parse(process.argv[1]).unknown_size_values.length)' "$inspected")
if [ "$unknown" -ne 0 ]; then
  echo "FAIL: $unknown values of unknown size (inspect's unknown_size_values)" >&2
  exit 1
fi
summary=$("$hyperplan" plan "$model" "${dims[@]}" --budget "$((peak / 2))B" -o "$work/plan.pb" \
  --emit-onnx "$work/rewritten.onnx" --summary-json)
cache_ops=$(($(json_field "$summary" prefetch_steps) + $(json_field "$summary" store_steps) + \
  $(json_field "$summary" detach_steps)))
if [ "$cache_ops" -eq 0 ]; then
  echo "FAIL: the plan has no cache ops, so the comparison proves nothing" >&2
  exit 1
fi
report=$(node tools/ort/run_model.mjs "$model" "${dims[@]}" --seed 1 --json \
  --compare "$work/rewritten.onnx")
verdict=$(node -e '
  const r = JSON.parse(process.argv[1]);
  const bad = r.compare.outputs.filter(o => !o.identical).map(o => o.name);
  const count = r.compare.outputs.length;
  console.log(bad.length === 0 && count === r.outputs.length && count > 0
              ? `ok: ${count} outputs identical` : `DIFFER: ${bad.join(", ") || "no outputs"}`);' \
  "$report")
echo "gpt2-optimized ($cache_ops cache ops): $verdict"
[[ "$verdict" == ok:* ]]
pairs=$(node -e 'const s = JSON.parse(process.argv[1]);
  console.log(s.loop_state.filter(p => p.output).map(p => `${p.output}=${p.input}`).join(","))' \
  "$summary")
node tests/ort/loop_steps.mjs "$model" "$work/rewritten.onnx" "${dims[@]}" --steps 3 --pairs "$pairs"
