#!/usr/bin/env bash
# Regenerates the bundled models in models/ with the built generator and checks each one
# (ONNX checker + shape inference with bound dims, via hyperplan-gen --check). Output is
# deterministic: rerunning leaves the files byte-identical.
# Usage: tools/make-models.sh [path/to/hyperplan-gen]   (default: build/tools/hyperplan-gen,
#        or $HYPERPLAN_GEN). Build it first, e.g.
#        cmake -S . -B build -DHYPERPLAN_TESTS=OFF && cmake --build build --target hyperplan-gen
set -euo pipefail
cd "$(dirname "$0")/.."
gen="${1:-${HYPERPLAN_GEN:-build/tools/hyperplan-gen}}"
if [[ ! -x "$gen" ]]; then
  echo "make-models: no generator at $gen; build the hyperplan-gen target first" >&2
  exit 1
fi

make_model() {
  local out="models/$1"
  shift
  "$gen" "$@" --check -o "$out"
}

# The unfused forms with every position's logits: what hyperplan's executor and CUDA tests run
# (standard ops only) and what the earlier defaults wrote, so these files stay byte-identical.
unfused=(--attention unfused --logits all)
make_model llama-tiny-prefill.onnx --preset tiny --form prefill "${unfused[@]}"
make_model llama-tiny-decode.onnx --preset tiny --form decode "${unfused[@]}"
make_model moe-tiny-prefill.onnx --preset tiny-moe --form prefill "${unfused[@]}"
make_model moe-tiny-decode.onnx --preset tiny-moe --form decode "${unfused[@]}"
make_model llama-tiny-decode-contrib.onnx --preset tiny --form decode --ops contrib --logits all
# The deployed form hyperplan-gen writes by default: GroupQueryAttention, last-position logits.
make_model llama-tiny-decode-fused.onnx --preset tiny --form decode
du -bc models/*.onnx
