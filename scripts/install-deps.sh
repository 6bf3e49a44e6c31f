#!/usr/bin/env bash
# Installs the Debian 12 packages hyperplan builds and tests with, only those missing, so the
# tests themselves install nothing (chromium and libxml2-utils: the browser test).
# Idempotent and quick when everything is present: it asks dpkg first, apt only if needed.
set -euo pipefail
packages=(g++ cmake make pkg-config libonnx-dev libprotobuf-dev protobuf-compiler libcli11-dev
          libspdlog-dev libfmt-dev libyaml-cpp-dev nlohmann-json3-dev libre2-dev libssl-dev
          catch2 libonnx-testdata clang libclang-rt-14-dev clang-format-14
          libgoogle-perftools-dev chromium libxml2-utils)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js (for the ONNX Runtime equivalence test) may come from elsewhere with npm bundled;
# Debian's own packages only when neither command is there.
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}" >&2
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi
