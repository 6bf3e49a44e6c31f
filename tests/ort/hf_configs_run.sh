#!/usr/bin/env bash
# Models from the tiny Hugging Face configs (tests/data/hf-configs/tiny-*.json: latent
# attention with YaRN and the group-limited router; q/k/v biases with a sliding window from
# layer 1; tied embeddings with attention and MLP biases and llama3 rope scaling) run in stock
# ONNX Runtime, and decode continues prefill: the last token's logits agree whether the
# prefill model sees all 9 tokens or the decode model adds the 9th to the caches prefill wrote
# for 8 (tests/ort/decode_continues_prefill.mjs, within 1e-4). That holds only when the caches,
# masks, rotary positions and attention agree between the two forms. The GQA models are
# checked fused (GroupQueryAttention with local_window_size, the default), unfused, and with
# --ops contrib (contrib norms, int4 weights).
#
# Usage (from anywhere): tests/ort/hf_configs_run.sh path/to/hyperplan-gen
set -euo pipefail
gen=$(realpath "$1")
cd "$(dirname "$0")/../.."

source tests/ort/ort_setup.sh  # onnxruntime-node, $work, json_field

failures=0
check() {  # name label [generator flags...]
  local name=$1 label=$2 config="tests/data/hf-configs/$1.json"
  shift 2
  for form in prefill decode; do
    "$gen" --from-hf-config "$config" --form "$form" "$@" --weight-storage inline --check \
      -o "$work/$name-$label-$form.onnx" > "$work/gen.log" || { cat "$work/gen.log" >&2; return 1; }
  done
  node tests/ort/decode_continues_prefill.mjs "$work/$name-$label-prefill.onnx" \
    "$work/$name-$label-decode.onnx" --tokens 9 --batch 2
}
# default: the deployed form (GroupQueryAttention, last-position logits; latent attention for
# DeepSeek); unfused: standard-op attention; contrib: contrib norms and int4 weights as well.
for run in "tiny-deepseek-v3 default" "tiny-qwen2-sliding default" "tiny-llama-tied default" \
           "tiny-qwen2-sliding unfused --attention unfused" \
           "tiny-llama-tied unfused --attention unfused" \
           "tiny-qwen2-sliding contrib --ops contrib" "tiny-llama-tied contrib --ops contrib"; do
  # shellcheck disable=SC2086
  if ! check $run; then
    echo "FAIL $run" >&2
    failures=$((failures + 1))
  fi
done
exit $((failures > 0))
