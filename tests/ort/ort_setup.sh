# Sourced by the ONNX Runtime tests (tests/ort/*.sh) from the repository root: installs
# onnxruntime-node into tools/ort/node_modules when it is missing (npm ci against the lock file,
# GPU binaries skipped), under a lock so parallel runs install it once; makes a scratch
# directory $work, removed on exit; and defines json_field and the checks every script makes
# (require_sized, cache_ops, identical_verdict, verify_and_run).
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

# Fails (1) with a line naming $1 when inspect's JSON ($2) lists values of unknown size: each
# form's claim is that the import sizes every value.
require_sized() {
  local unknown
  unknown=$(node -e 'console.log(JSON.parse(process.argv[1]).unknown_size_values.length)' "$2")
  [ "$unknown" -eq 0 ] && return 0
  echo "FAIL $1: $unknown values of unknown size (inspect's unknown_size_values)" >&2
  return 1
}

# Prints the plan's Prefetch + Store + Detach steps from its --summary-json ($2); fails (1) when
# there are none, since a rewritten model without cache ops computes the same trivially.
cache_ops() {
  local count
  count=$(($(json_field "$2" prefetch_steps) + $(json_field "$2" store_steps) + \
    $(json_field "$2" detach_steps)))
  [ "$count" -gt 0 ] && { echo "$count"; return 0; }
  echo "FAIL $1: the plan has no cache ops, so the comparison proves nothing" >&2
  return 1
}

# "ok: N outputs identical" when tools/ort/run_model.mjs --json --compare ($1) found every output
# of the original in the rewritten model, bit for bit; else "DIFFER: " and the outputs that differ.
identical_verdict() {
  node -e '
    const r = JSON.parse(process.argv[1]);
    const bad = r.compare.outputs.filter(o => !o.identical).map(o => o.name);
    const count = r.compare.outputs.length;
    console.log(bad.length === 0 && count === r.outputs.length && count > 0
                ? `ok: ${count} outputs identical` : `DIFFER: ${bad.join(", ") || "no outputs"}`);' \
    "$1"
}

# The plan file $1 of model $2 verifies and replays twice in hyperplan's reference executor on
# real buffers (the script's $hyperplan); on failure prints what hyperplan said and fails (1).
verify_and_run() {
  "$hyperplan" verify "$1" --model "$2" >"$1.log" 2>&1 &&
    "$hyperplan" run "$1" --model "$2" --iterations 2 >"$1.log" 2>&1 && return 0
  cat "$1.log" >&2
  return 1
}
