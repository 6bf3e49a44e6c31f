#!/usr/bin/env bash
# The whole GPU session of issue 33 in one device call, under 8 minutes: calibrate the GPU,
# plan every bundled model (models/*.onnx) and a scaled-down Llama-3-8B decode (2 layers,
# ~3 GB of bf16 weights) under budgets below their no-offload peaks on the measured profile,
# run each plan with `hyperplan run --backend cuda --timed`, and write a Markdown table
# (simulated, measured, ratio, stall, arena) to $OUT/gpu-check.md, beside the measured profile,
# calibrate's report and the log. docs/gpu.md explains the table.
#
# 1. Here, on the build machine (nvcc, no GPU needed), once per change:
#      scripts/gpu-check.sh --prepare
#    builds a Release hyperplan and hyperplan-gen with CUDA in build-gpu/ and copies them with
#    every shared library `ldd` lists (glibc and the driver excepted) into build-gpu/dist/
#    (well under the device tool's 64 MiB; the CUDA runtime is linked in statically).
# 2. On the device machine, through the device tool:
#      run(command="scripts/gpu-check.sh", carry=["build-gpu/dist"], timeout_s=540)
#    The device machine has the NVIDIA driver and no Debian packages: LD_LIBRARY_PATH points
#    at build-gpu/dist/lib, plus the first folder found holding libcublasLt.so.13 (CUDA's
#    own or a pip wheel's) for the GEMM figures; without one, GEMMs are reported as not
#    measured and everything else still runs.
# 3. Paste $OUT/gpu-check.md into docs/benchmarks.md ("Measured on a GPU").
#
# Here, without a GPU (a dry run): `scripts/gpu-check.sh` (after --prepare) stops at the first
# step with calibrate's one-line error and exits 11; with no $OUT it writes to build-gpu/out.
set -euo pipefail
cd "$(dirname "$0")/.."

dist=build-gpu/dist

prepare() {
  export CCACHE_DIR=${CCACHE_DIR:-/work/.ccache}
  local launcher=()
  if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
  fi
  export PATH="$PATH:/usr/local/cuda/bin"
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DHYPERPLAN_TESTS=OFF -DHYPERPLAN_CUDA=ON \
    -DHYPERPLAN_TCMALLOC=OFF "${launcher[@]}" >/dev/null
  nice cmake --build build-gpu -j"$(nproc)" --target hyperplan hyperplan-gen
  rm -rf "$dist"
  mkdir -p "$dist/bin" "$dist/lib"
  cp build-gpu/hyperplan build-gpu/tools/hyperplan-gen "$dist/bin/"
  # Every library the two need, but glibc's own and the driver (the device machine has those).
  ldd build-gpu/hyperplan build-gpu/tools/hyperplan-gen | awk '/=> \// {print $3}' | sort -u |
    grep -Ev '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*|libcuda)\.so' |
    while read -r library; do cp -L "$library" "$dist/lib/"; done
  strip "$dist/bin/"* 2>/dev/null || true
  du -sh "$dist"
  echo "prepared: carry [\"$dist\"], command \"scripts/gpu-check.sh\""
}

if [ "${1:-}" = "--prepare" ]; then
  prepare
  exit 0
fi
[ -x "$dist/bin/hyperplan" ] || { echo "gpu-check: no $dist/bin/hyperplan: run scripts/gpu-check.sh --prepare first" >&2; exit 2; }

out=${OUT:-build-gpu/out}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log="$out/gpu-check.log"
: >"$log"

library_path="$PWD/$dist/lib"
for folder in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib \
  $(ls -d /opt/*/.venv/lib/python3*/site-packages/nvidia/cu13/lib \
    /usr/local/lib/python3*/dist-packages/nvidia/cu13/lib 2>/dev/null); do
  if [ -e "$folder/libcublasLt.so.13" ]; then
    library_path="$library_path:$folder"
    break
  fi
done
export LD_LIBRARY_PATH="$library_path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
hyperplan="$PWD/$dist/bin/hyperplan"
gen="$PWD/$dist/bin/hyperplan-gen"
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH" >>"$log"
command -v nvidia-smi >/dev/null && nvidia-smi -L >>"$log" 2>&1 || true

# 1. Calibrate: the measured profile every plan below is made for.
profile="$out/measured.yaml"
set +e
timeout 120 "$hyperplan" calibrate -o "$profile" >"$out/calibrate.txt" 2>"$work/calibrate.err"
status=$?
set -e
cat "$out/calibrate.txt" "$work/calibrate.err" >>"$log"
if [ "$status" -ne 0 ]; then
  echo "gpu-check: stopped at calibrate (exit $status): $(cat "$work/calibrate.err")" >&2
  exit "$status"
fi
cat "$out/calibrate.txt"

# 2. Plan and run. Dims per form; the budget is 60% of the no-offload peak `inspect --json`
# reports (an int64: a quoted string in protobuf JSON)
# (the scaled-down decode: 1.5 GiB, under its ~3 GB of weights).
dims_of() {
  case "$1" in
    *decode*) echo "--dim batch=1 --dim sequence=1 --dim past_sequence=16" ;;
    *) echo "--dim batch=1 --dim sequence=8" ;;
  esac
}

table="$out/gpu-check.md"
{
  echo "| model | budget | simulated | measured | measured/simulated | stall simulated | stall measured | arena | note |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---|"
} >"$table"

# plan_and_run NAME MODEL BUDGET_BYTES EXTRA_RUN_FLAGS DIMS...
plan_and_run() {
  local name=$1 model=$2 budget=$3 extra=$4
  shift 4
  local plan="$work/$name.plan.json"
  set +e
  timeout 120 "$hyperplan" plan "$model" --hw "$profile" "$@" --budget "${budget}B" \
    -o "$plan" -q >>"$log" 2>&1
  local status=$?
  set -e
  if [ "$status" -ne 0 ]; then
    echo "| $name | $budget B | - | - | - | - | - | - | plan exit $status |" >>"$table"
    return
  fi
  set +e
  # shellcheck disable=SC2086
  timeout 180 "$hyperplan" run "$plan" --model "$model" --hw "$profile" --backend cuda --timed \
    --iterations 5 --max-memory 32GiB $extra >"$work/run.txt" 2>&1
  status=$?
  set -e
  cat "$work/run.txt" >>"$log"
  local line
  line=$(grep '^timed: ' "$work/run.txt" || true)
  if [ "$status" -ne 0 ] || [ -z "$line" ]; then
    echo "| $name | $budget B | - | - | - | - | - | - | run exit $status: $(tail -1 "$work/run.txt" | tr '|' '/') |" >>"$table"
    return
  fi
  field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" <<<" $line"; }
  echo "| $name | $budget B | $(field simulated_makespan_ns) ns | $(field measured_makespan_ns) ns | $(field ratio) | $(field simulated_stall_ns) ns | $(field measured_stall_ns) ns | $(field arena_bytes) B | ${extra:-spin kernels} |" >>"$table"
}

for model in models/*.onnx; do
  name=$(basename "$model" .onnx)
  # shellcheck disable=SC2046
  peak=$("$hyperplan" inspect "$model" --hw "$profile" $(dims_of "$model") --json |
    grep -o '"peak_bytes": *"*[0-9]*' | head -1 | grep -o '[0-9]*$')
  # shellcheck disable=SC2046
  plan_and_run "$name" "$model" $((peak * 6 / 10)) "" $(dims_of "$model")
done

# 3. The scaled-down decode: Llama-3-8B's layer shapes, 2 layers, weights never written.
big="$work/llama3-8b-2layers-decode.onnx"
# The unfused form (standard-op attention, every position's logits): what --gemm multiplies.
"$gen" --preset llama3-8b --layers 2 --form decode --attention unfused --logits all -o "$big" \
  >>"$log" 2>&1
big_dims=(--dim batch=1 --dim sequence=1 --dim past_sequence=1024)
plan_and_run llama3-8b-2layers-decode "$big" $((1536 * 1024 * 1024)) "" "${big_dims[@]}"
plan_and_run llama3-8b-2layers-decode "$big" $((1536 * 1024 * 1024)) "--gemm" "${big_dims[@]}"

{
  echo
  echo "Measured on $(grep -m1 '^calibrate on' "$out/calibrate.txt" | sed 's/^calibrate on //'),"
  echo "profile $(sed -n 's/^name: //p' "$profile") (calibrate's, written to measured.yaml)."
} >>"$table"
cat "$table"
