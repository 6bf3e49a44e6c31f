#!/usr/bin/env bash
# README command 1: install what is missing, build the release binary, and run the main job on
# a bundled model with a bundled profile: inspect it, then plan it into a budget of two thirds
# of its no-offload peak, writing the plan, the rewritten ONNX model and the HTML report.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DHYPERPLAN_TESTS=OFF >/dev/null
cmake --build build -j"$(nproc)"
dims=(--dim batch=1 --dim sequence=1 --dim past_sequence=32)
build/hyperplan inspect models/llama-tiny-decode.onnx --hw configs/supernode.yaml "${dims[@]}"
build/hyperplan plan models/llama-tiny-decode.onnx --hw configs/supernode.yaml "${dims[@]}" \
  --budget 768KiB -o build/llama-tiny-decode.plan.json \
  --emit-onnx build/llama-tiny-decode.planned.onnx --report build/llama-tiny-decode.report.html
