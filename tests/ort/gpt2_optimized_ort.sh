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

source tests/ort/ort_setup.sh  # onnxruntime-node, $work, json_field and the shared checks

model="$work/gpt2-optimized.onnx"
"$gen" --preset tiny --form gpt2-optimized --check -o "$model" >/dev/null
dims=(--dim batch=1 --dim sequence=1 --dim past_sequence=16)
inspected=$("$hyperplan" inspect "$model" "${dims[@]}" --json)
peak=$(json_field "$inspected" peak_bytes)
require_sized gpt2-optimized "$inspected"
summary=$("$hyperplan" plan "$model" "${dims[@]}" --budget "$((peak / 2))B" -o "$work/plan.pb" \
  --emit-onnx "$work/rewritten.onnx" --summary-json)
cache_ops=$(cache_ops gpt2-optimized "$summary")
report=$(node tools/ort/run_model.mjs "$model" "${dims[@]}" --seed 1 --json \
  --compare "$work/rewritten.onnx")
verdict=$(identical_verdict "$report")
echo "gpt2-optimized ($cache_ops cache ops): $verdict"
[[ "$verdict" == ok:* ]]
pairs=$(node -e 'const s = JSON.parse(process.argv[1]);
  console.log(s.loop_state.filter(p => p.output).map(p => `${p.output}=${p.input}`).join(","))' \
  "$summary")
node tests/ort/loop_steps.mjs "$model" "$work/rewritten.onnx" "${dims[@]}" --steps 3 --pairs "$pairs"
