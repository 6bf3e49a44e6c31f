#!/usr/bin/env bash
# ONNX Runtime equivalence of the generator's quantized-cache and shared-buffer forms of
# GroupQueryAttention (--kv-dtype int8, --kv-layout shared): each is planned at half its
# no-offload peak and rewritten with --emit-onnx; stock ONNX Runtime (tools/ort/run_model.mjs,
# CPU provider) runs the original and the rewritten model on the same seeded inputs, and every
# output must be bit-identical. Every value is sized (inspect's unknown_size_values is empty;
# plans are made without --allow-unknown); plans verify and replay in `hyperplan run` first.
# float32 activations: ONNX Runtime's CPU kernel takes a quantized cache with float32 Q/K/V.
# --kv-dtype fp8 is not run: onnxruntime-node cannot feed float8 inputs (and ONNX 1.12, which
# --check uses, has no float8 type).
#
# Usage (from anywhere): tests/ort/quantized_kv_ort.sh path/to/hyperplan path/to/hyperplan-gen
# Installs onnxruntime-node when missing (tests/ort/ort_setup.sh).
set -euo pipefail
hyperplan=$(realpath "$1")
gen=$(realpath "$2")
cd "$(dirname "$0")/../.."

source tests/ort/ort_setup.sh  # onnxruntime-node, $work, json_field and the shared checks

check_form() {
  local name=$1 dims_text=$2
  shift 2
  local model="$work/$name.onnx"
  read -r -a dims <<<"$dims_text"
  "$gen" --preset tiny --form decode --dtype float32 "$@" -o "$model" >/dev/null
  local inspected peak summary cache_ops report verdict
  inspected=$("$hyperplan" inspect "$model" "${dims[@]}" --json)
  peak=$(json_field "$inspected" peak_bytes)
  require_sized "$name" "$inspected" || return 1
  summary=$("$hyperplan" plan "$model" "${dims[@]}" --budget "$((peak / 2))B" \
    -o "$work/$name.pb" --emit-onnx "$work/$name-rewritten.onnx" --summary-json)
  cache_ops=$(cache_ops "$name" "$summary") || return 1
  # The plan verifies and replays in hyperplan's reference executor on real buffers.
  verify_and_run "$work/$name.pb" "$model" || return 1
  # past_sequence is the tokens already in the cache (the shared buffer holds more rows).
  report=$(node tools/ort/run_model.mjs "$model" "${dims[@]}" --dim past_sequence=3 --seed 1 \
    --json --compare "$work/$name-rewritten.onnx")
  verdict=$(identical_verdict "$report")
  echo "$name ($cache_ops cache ops): $verdict"
  [[ "$verdict" == ok:* ]]
}

check_form int8 "--dim batch=1 --dim sequence=1 --dim past_sequence=3" --kv-dtype int8
check_form int8-channel "--dim batch=1 --dim sequence=1 --dim past_sequence=3" \
  --kv-dtype int8 --kv-scales channel
check_form shared "--dim batch=1 --dim sequence=1 --dim max_length=8" --kv-layout shared
check_form shared-int8 "--dim batch=1 --dim sequence=1 --dim max_length=8" \
  --kv-layout shared --kv-dtype int8
