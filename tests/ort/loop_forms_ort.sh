#!/usr/bin/env bash
# The generator's exporter-named loop forms (hyperplan-gen --loop-form: whisper-optimum,
# whisper-ort, hybrid; tools/generator/loop_state_forms.h) through the whole pipeline: each is
# imported with no value of unknown size (inspect's unknown_size_values is empty), planned at
# half its no-offload peak without --allow-unknown, verified, run in the reference executor (hyperplan run, two
# iterations), and rewritten with --emit-onnx; then stock ONNX Runtime runs the original and
# the rewritten model for three decode steps, each feeding its own presents back as pasts
# (tests/ort/loop_steps.mjs), and every output of every step must be bit-identical. The pairs
# ONNX Runtime feeds must be the plan's loop_state. Every op of these forms (MatMul, Reshape,
# Transpose, Concat, Softmax, Slice, Mul, ReduceSum, Unsqueeze, Add, Gather) is on ONNX
# Runtime's CPU provider, so no form is skipped.
#
# Usage (from anywhere): tests/ort/loop_forms_ort.sh path/to/hyperplan path/to/hyperplan-gen
# Installs onnxruntime-node when missing (tests/ort/ort_setup.sh).
set -euo pipefail
hyperplan=$(realpath "$1")
gen=$(realpath "$2")
cd "$(dirname "$0")/../.."

source tests/ort/ort_setup.sh  # onnxruntime-node, $work, json_field and the shared checks

# "out=in,..." for the loop_state pairs of a --summary-json line (cross caches have no output).
plan_pairs() {
  node -e 'const s = JSON.parse(process.argv[1]);
    console.log(s.loop_state.filter(p => p.output).map(p => `${p.output}=${p.input}`).join(","))' "$1"
}

check() {  # form dims...
  local form=$1 model="$work/$1.onnx"
  shift
  local dims=("$@")
  # set -e does not reach inside `if ! check`: each step returns on failure itself.
  "$gen" --loop-form "$form" -o "$model" >/dev/null || return 1
  local inspected peak summary cache_ops
  inspected=$("$hyperplan" inspect "$model" "${dims[@]}" --json) || return 1
  peak=$(json_field "$inspected" peak_bytes)
  require_sized "$form" "$inspected" || return 1
  summary=$("$hyperplan" plan "$model" "${dims[@]}" --budget "$((peak / 2))B" -o "$work/$form.pb" \
    --emit-onnx "$work/$form-rewritten.onnx" --summary-json 2>"$work/$form.log") ||
    { cat "$work/$form.log" >&2; return 1; }
  cache_ops=$(cache_ops "$form" "$summary") || return 1
  verify_and_run "$work/$form.pb" "$model" || return 1
  echo "$form ($cache_ops cache ops, verified, ran twice in the reference executor):"
  node tests/ort/loop_steps.mjs "$model" "$work/$form-rewritten.onnx" "${dims[@]}" --steps 3 \
    --pairs "$(plan_pairs "$summary")"
}

failures=0
for run in "whisper-optimum --dim batch_size=2 --dim past_decoder_sequence_length=15 --dim encoder_sequence_length_out=30" \
           "whisper-ort --dim batch_size=2 --dim past_sequence_length=15 --dim encoder_sequence_length=30" \
           "hybrid --dim batch_size=2 --dim past_sequence_length=15"; do
  # shellcheck disable=SC2086
  if ! check $run; then
    echo "FAIL ${run%% *}" >&2
    failures=$((failures + 1))
  fi
done
exit $((failures > 0))
