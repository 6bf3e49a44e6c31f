#!/usr/bin/env bash
# Runs every fenced ```sh block of README.md, in order, in one shell, as a user would after the
# two set-up commands: from a checkout whose build/ holds this build's executables. A block
# preceded by `<!-- readme-test: skip (reason) -->` is not run (the set-up commands themselves,
# which built what this test runs with, and the Release benchmarks); every other block must
# run verbatim, so no placeholder survives in one. Exit 0 when every command succeeds.
#
# Usage: readme_test.sh SOURCE_DIR BUILD_DIR
# The scratch checkout links the sources the commands read (models/, configs/, tests/data/,
# scripts/) and holds build/ with links to BUILD_DIR's executables; whatever the commands
# write lands in the scratch directory, which is removed at the end.
set -euo pipefail
source_dir=$(cd "$1" && pwd)
build_dir=$(cd "$2" && pwd)
readme="$source_dir/README.md"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for entry in models configs scripts; do ln -s "$source_dir/$entry" "$scratch/$entry"; done
mkdir -p "$scratch/tests" "$scratch/build/tools"
ln -s "$source_dir/tests/data" "$scratch/tests/data"
ln -s "$build_dir/hyperplan" "$scratch/build/hyperplan"
ln -s "$build_dir/tools/hyperplan-gen" "$scratch/build/tools/hyperplan-gen"

# The runnable blocks, each announced by an echo naming its README line.
script="$scratch/readme-commands.sh"
awk '
  /^<!-- readme-test: skip/ { skip_next = 1; next }
  /^```sh[[:space:]]*$/ && !in_block {
    in_block = 1; run = !skip_next; skip_next = 0
    if (run) printf "echo \"== README.md:%d\" >&2\n", NR
    next
  }
  /^```/ && in_block { in_block = 0; next }
  /^```/ { skip_next = 0; next }
  in_block && run { print }
  !in_block && NF { skip_next = skip_next && /^<!--/ }
' "$readme" >"$script"

blocks=$(grep -c '^echo "== README.md:' "$script" || true)
if [ "$blocks" -eq 0 ]; then
  echo "readme_test: no runnable sh block found in $readme" >&2
  exit 1
fi
echo "readme_test: running $blocks blocks from $readme in $scratch" >&2
cd "$scratch"
bash -euo pipefail "$script"
