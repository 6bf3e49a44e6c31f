# Sourced by the ONNX Runtime tests (tests/ort/*.sh) from the repository root: installs
# onnxruntime-node into tools/ort/node_modules when it is missing (npm ci against the lock file,
# GPU binaries skipped), under a lock so parallel runs install it once; makes a scratch
# directory $work, removed on exit; and defines json_field.
if [ ! -f tools/ort/node_modules/onnxruntime-node/package.json ]; then
  (
    flock 9
    if [ ! -f tools/ort/node_modules/onnxruntime-node/package.json ]; then
      (cd tools/ort && npm ci --onnxruntime-node-install=skip --no-audit --no-fund) >&2
    fi
  ) 9>"${TMPDIR:-/tmp}/hyperplan-ort-npm.lock"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A top-level field of a JSON object (protobuf prints int64 as strings; both read as numbers).
json_field() { node -e 'const o = JSON.parse(process.argv[1]); console.log(o[process.argv[2]] ?? "")' "$1" "$2"; }
