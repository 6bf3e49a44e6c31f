#!/usr/bin/env bash
# Lists every C++ file under src/ include/ tools/ tests/ that clang-format (the repo's
# .clang-format, Google base) would change, and fails if there is one. Fix with:
#   git ls-files '*.cc' '*.h' | xargs clang-format-14 -i
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format-14 >/dev/null || scripts/install-deps.sh
unformatted=()
while IFS= read -r -d '' file; do
  clang-format-14 --dry-run -Werror "$file" >/dev/null 2>&1 || unformatted+=("$file")
done < <(git ls-files -z -- 'src/*.cc' 'src/*.h' 'include/*.h' 'tools/*.cc' 'tools/*.h' \
           'tests/*.cc' 'tests/*.h')
if ((${#unformatted[@]})); then
  printf 'not clang-formatted: %s\n' "${unformatted[@]}" >&2
  exit 1
fi
echo "clang-format: every file formatted"
