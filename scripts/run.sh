#!/usr/bin/env bash
# README command 1: install what is missing, build the release binary, and run the main job on
# a bundled model with a bundled profile.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DHYPERPLAN_TESTS=OFF >/dev/null
cmake --build build -j"$(nproc)"
build/hyperplan inspect models/llama-tiny-decode.onnx --hw configs/supernode.yaml \
  --dim batch=1 --dim past_sequence=32 --dim sequence=1
