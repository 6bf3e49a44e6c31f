#!/usr/bin/env bash
# The generator's MoE forms (hyperplan-gen --moe-form; tools/generator/moe_forms.h) compute the
# dense form's function in stock ONNX Runtime (onnxruntime-node, CPU, which has MoE and QMoE
# kernels): on the same seeded inputs, the ort form (one com.microsoft MoE node per layer) and
# the gather form (TopK, then experts gathered by index) give the dense form's outputs to float
# rounding, and the int4 QMoE form gives the outputs of the dense form with --fake-quant (its
# weights rounded to the same 4-bit grid). A tolerance of 1e-5 on values of about 2 leaves room
# for summation order only: a wrong interleaving of gate and up rows, a transposed expert or a
# wrong nibble order moves the logits by 1e-1 or more. Each form also plans, verifies and runs
# in the reference executor at half its no-offload peak.
#
# Usage (from anywhere): tests/ort/moe_forms_ort.sh path/to/hyperplan path/to/hyperplan-gen
# Installs onnxruntime-node when missing (tests/ort/ort_setup.sh).
set -euo pipefail
hyperplan=$(realpath "$1")
gen=$(realpath "$2")
cd "$(dirname "$0")/../.."

source tests/ort/ort_setup.sh  # onnxruntime-node, $work, json_field and the shared checks

failures=0
dims=(--dim batch=1 --dim sequence=8)

# The largest element-wise difference over every output of a --compare report.
max_diff() {
  node -e 'const r = JSON.parse(process.argv[1]);
    const bad = r.compare.outputs.filter(o => o.missing || !o.same_shape);
    console.log(bad.length > 0 || r.compare.outputs.length === 0 ? "Infinity"
                : Math.max(...r.compare.outputs.map(o => o.max_abs_diff ?? 0)));' "$1"
}

model=(--preset tiny-moe)  # the generator's model flags, for agree

agree() {  # reference form-name extra-generator-flags...
  local reference=$1 name=$2
  shift 2
  "$gen" "${model[@]}" --form prefill "$@" --check -o "$work/$name.onnx" >/dev/null
  local report diff
  report=$(node tools/ort/run_model.mjs "$work/$reference.onnx" "${dims[@]}" --seed 1 --json \
    --compare "$work/$name.onnx")
  diff=$(max_diff "$report")
  if node -e 'process.exit(Number(process.argv[1]) <= 1e-5 ? 0 : 1)' "$diff"; then
    echo "$name: agrees with $reference (max |diff| $diff)"
  else
    echo "FAIL $name: max |diff| $diff from $reference" >&2
    failures=$((failures + 1))
  fi
}

plans() {  # name
  local model="$work/$1.onnx" peak
  peak=$(json_field "$("$hyperplan" inspect "$model" "${dims[@]}" --json)" peak_bytes)
  if "$hyperplan" plan "$model" "${dims[@]}" --budget "$((peak / 2))B" -o "$work/$1.pb" \
       >/dev/null && verify_and_run "$work/$1.pb" "$model"; then
    echo "$1: plans at half peak, verifies, runs"
  else
    echo "FAIL $1: plan, verify or run failed" >&2
    failures=$((failures + 1))
  fi
}

"$gen" --preset tiny-moe --form prefill -o "$work/dense.onnx" >/dev/null
"$gen" --preset tiny-moe --form prefill --fake-quant -o "$work/dense-fake-int4.onnx" >/dev/null
agree dense ort --moe-form ort
agree dense gather --moe-form gather
agree dense-fake-int4 ort-int4 --moe-form ort --weights int4
for name in ort gather ort-int4; do plans "$name"; done

# The configs of issue 31's models at tiny size (tests/data/hf-configs): Qwen3-MoE (q/k norms,
# a dense layer from mlp_only_layers), GPT-OSS (router and expert biases, the clamped SwiGLU as
# MoE's swiglu_limit / activation_alpha / activation_beta) and DeepSeek-V3's sigmoid
# group-limited router (gathered, or fed to MoE as the logits of its weights). The gather form's int4 experts (codes widened by
# nibble tables, the path MXFP4 shares) agree with QMoE's int4 on the same 4-bit grid.
# (tiny-gpt-oss.json leaves out the published quantization_config, so its gather form is plain.)
for config in tiny-qwen3-moe tiny-gpt-oss tiny-deepseek-v3; do
  model=(--from-hf-config "tests/data/hf-configs/$config.json" --weight-storage inline)
  "$gen" "${model[@]}" --form prefill -o "$work/$config-dense.onnx" >/dev/null
  agree "$config-dense" "$config-gather" --moe-form gather
  agree "$config-dense" "$config-ort" --moe-form ort  # DeepSeek-V3's routing as logits
  "$gen" "${model[@]}" --form prefill --moe-form ort --weights int4 \
    -o "$work/$config-ort-int4.onnx" >/dev/null
  agree "$config-ort-int4" "$config-gather-int4" --moe-form gather --weights int4
done
# GPT-OSS's attention sinks and alternating windows (window 4 over 8 tokens): the unfused form's
# extra softmax column and window mask against GroupQueryAttention's head_sink and
# local_window_size.
model=(--from-hf-config tests/data/hf-configs/tiny-gpt-oss.json --weight-storage inline)
"$gen" "${model[@]}" --form prefill --attention unfused -o "$work/gpt-oss-unfused.onnx" >/dev/null
agree gpt-oss-unfused gpt-oss-fused --attention fused
exit $((failures > 0))
