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

source tests/ort/ort_setup.sh  # onnxruntime-node, $work, json_field

check_form() {
  local name=$1 dims_text=$2
  shift 2
  local model="$work/$name.onnx"
  read -r -a dims <<<"$dims_text"
  "$gen" --preset tiny --form decode --dtype float32 "$@" -o "$model" >/dev/null
  local inspected peak unknown summary cache_ops report verdict
  inspected=$("$hyperplan" inspect "$model" "${dims[@]}" --json)
  peak=$(json_field "$inspected" peak_bytes)
  unknown=$(node -e 'console.log(JSON.parse(process.argv[1]).unknown_size_values.length)' \
    "$inspected")
  if [ "$unknown" -ne 0 ]; then
    echo "FAIL: $name: $unknown values of unknown size (inspect's unknown_size_values)" >&2
    return 1
  fi
  summary=$("$hyperplan" plan "$model" "${dims[@]}" --budget "$((peak / 2))B" \
    -o "$work/$name.pb" --emit-onnx "$work/$name-rewritten.onnx" --summary-json)
  cache_ops=$(($(json_field "$summary" prefetch_steps) + $(json_field "$summary" store_steps) + \
    $(json_field "$summary" detach_steps)))
  if [ "$cache_ops" -eq 0 ]; then
    echo "FAIL: $name: the plan has no cache ops, so the comparison proves nothing" >&2
    return 1
  fi
  # The plan verifies and replays in hyperplan's reference executor on real buffers.
  "$hyperplan" verify "$work/$name.pb" --model "$model" >"$work/$name.verify" 2>&1 ||
    { cat "$work/$name.verify" >&2; return 1; }
  "$hyperplan" run "$work/$name.pb" --model "$model" --iterations 2 >"$work/$name.run" 2>&1 ||
    { cat "$work/$name.run" >&2; return 1; }
  # past_sequence is the tokens already in the cache (the shared buffer holds more rows).
  report=$(node tools/ort/run_model.mjs "$model" "${dims[@]}" --dim past_sequence=3 --seed 1 \
    --json --compare "$work/$name-rewritten.onnx")
  verdict=$(node -e '
    const r = JSON.parse(process.argv[1]);
    const bad = r.compare.outputs.filter(o => !o.identical).map(o => o.name);
    const count = r.compare.outputs.length;
    console.log(bad.length === 0 && count === r.outputs.length && count > 0
                ? `ok: ${count} outputs identical` : `DIFFER: ${bad.join(", ") || "no outputs"}`);' \
    "$report")
  echo "$name ($cache_ops cache ops): $verdict"
  [[ "$verdict" == ok:* ]]
}

check_form int8 "--dim batch=1 --dim sequence=1 --dim past_sequence=3" --kv-dtype int8
check_form int8-channel "--dim batch=1 --dim sequence=1 --dim past_sequence=3" \
  --kv-dtype int8 --kv-scales channel
check_form shared "--dim batch=1 --dim sequence=1 --dim max_length=8" --kv-layout shared
check_form shared-int8 "--dim batch=1 --dim sequence=1 --dim max_length=8" \
  --kv-layout shared --kv-dtype int8
