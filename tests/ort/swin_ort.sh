#!/usr/bin/env bash
# ONNX Runtime runs the generator's Swin-class form (hyperplan-gen --form swin: window padding,
# shifts and partition computed from the input's Shape, as torch.onnx exports torchvision's
# swin_t; issue 32), which hyperplan sizes in full without any --dim: ONNX Runtime's logits
# have the shape hyperplan infers, [1, 1000], not the exporter's Gemmlogits_dim_0 (the window
# shapes inside are checked by hand arithmetic in tests/onnx/swin_form_test.cc). The
# model is planned in the default mode (no budget: the 62.5 KiB head weight alone is half the
# 137 KiB peak, so half the peak cannot hold the Gemm) without --allow-unknown (every value
# sized) and rewritten with --emit-onnx; stock ONNX Runtime (tools/ort/run_model.mjs) runs the original and
# the rewritten model on the same seeded input, and every output must be bit-identical.
#
# Usage (from anywhere): tests/ort/swin_ort.sh path/to/hyperplan path/to/hyperplan-gen
# Installs onnxruntime-node when missing (tests/ort/ort_setup.sh).
set -euo pipefail
hyperplan=$(realpath "$1")
gen=$(realpath "$2")
cd "$(dirname "$0")/../.."

source tests/ort/ort_setup.sh  # onnxruntime-node, $work, json_field and the shared checks

model="$work/swin.onnx"
"$gen" --form swin -o "$model" >/dev/null
inspected=$("$hyperplan" inspect "$model" --json)
require_sized swin "$inspected"
if [ "$(json_field "$inspected" sized)" != true ]; then
  echo "FAIL swin: inspect does not call the form sized" >&2
  exit 1
fi
summary=$("$hyperplan" plan "$model" -o "$work/plan.pb" \
  --emit-onnx "$work/rewritten.onnx" --summary-json)
cache_ops=$(cache_ops swin "$summary")
report=$(node tools/ort/run_model.mjs "$model" --seed 1 --json --compare "$work/rewritten.onnx")
verdict=$(node -e '
  const r = JSON.parse(process.argv[1]);
  const bad = r.compare.outputs.filter(o => !o.identical).map(o => o.name);
  const count = r.compare.outputs.length;
  const logits = r.outputs.find(o => o.name === "logits");
  const shape = logits ? JSON.stringify(logits.dims ?? logits.shape) : "none";
  console.log(bad.length === 0 && count === r.outputs.length && count > 0 && shape === "[1,1000]"
              ? `ok: ${count} outputs identical, logits ${shape}`
              : `DIFFER: ${bad.join(", ") || "no outputs"}; logits ${shape}`);' \
  "$report")
echo "swin ($cache_ops cache ops): $verdict"
[[ "$verdict" == ok:* ]]
