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

make_model llama-tiny-prefill.onnx --preset tiny --form prefill
make_model llama-tiny-decode.onnx --preset tiny --form decode
make_model moe-tiny-prefill.onnx --preset tiny-moe --form prefill
make_model moe-tiny-decode.onnx --preset tiny-moe --form decode
make_model llama-tiny-decode-contrib.onnx --preset tiny --form decode --ops contrib
du -bc models/*.onnx
