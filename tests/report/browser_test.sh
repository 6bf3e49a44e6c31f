#!/usr/bin/env bash
# Browser test: renders HTML reports in headless Chromium and checks what comes out.
#   1. `hyperplan plan ... --report` on a bundled model (the README's "See the plan" command),
#      `hyperplan fit --sweep ... --report` on the model the fit tests use (four values),
#      plus the sample reports the report tests write (a small plan with a stall, a 3000-node
#      plan whose lanes are density bands, a plan no budget fits (red verdict) and one over its
#      overhead target (amber));
#   2. each page is well-formed XML (xmllint), and Chromium's HTML parser builds the same
#      elements from it (element count of --dump-dom against the XML parse), so the polyglot
#      markup reads the same in both;
#   3. each screenshot is not blank (tests/report/png_check.js: distinct colours, pixels off
#      the background, the compute and transfer fills present).
# Needs chromium, xmllint and node: scripts/install-deps.sh installs them, this test nothing.
# Usage: browser_test.sh HYPERPLAN_CLI REPORT_TESTS_EXECUTABLE   (run from the source root)
set -euo pipefail
cli=$1
report_tests=$2

# Installed by scripts/install-deps.sh (the README's test command runs it before ctest); a
# test installs nothing, and fails rather than skips when its tools are missing.
for tool in /usr/bin/chromium xmllint node; do
  command -v "$tool" >/dev/null || {
    echo "browser test: $tool is missing; run scripts/install-deps.sh" >&2
    exit 1
  }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

chromium_headless() {
  # Debian's wrapper prints harmless noise on stderr; the exit code and outputs decide.
  timeout 120 /usr/bin/chromium --headless --no-sandbox --disable-gpu \
    --disable-background-networking --disable-component-update --disable-sync --no-first-run \
    --user-data-dir="$(mktemp -d -p "$work")" "$@" 2>/dev/null
}

"$cli" plan models/llama-tiny-decode.onnx --dim batch=1 --dim sequence=1 \
  --dim past_sequence=256 --budget 1MiB --report "$work/plan.html" --trace "$work/plan.json" \
  --quiet >/dev/null
# The fit tests' unit-rate two-tier machine (tests/cli/fit_cli_test.cc): 256 tokens of cache
# stay on the 1 MB device (a green point, the answer), 2048 stream from ddr (over the target).
cat >"$work/unit-two-tier.yaml" <<'YAML'
name: unit-two-tier
tiers:
  - {name: hbm, capacity: 1MB, device: true, alignment: 1B}
  - {name: ddr, capacity: 1GB, alignment: 1B}
links:
  - {from: ddr, to: hbm, bandwidth: 1GB/s, reverse_bandwidth: 1GB/s}
compute:
  peak: {float: 1GFLOPS}
  memory_bandwidth: 1GB/s
  efficiency: 1
  kernel_launch_overhead: 0ns
YAML
"$cli" fit models/llama-tiny-decode-contrib.onnx --hw "$work/unit-two-tier.yaml" \
  --dim batch=1 --dim sequence=1 --sweep past_sequence=256..2048 --max-overhead 5 \
  --report "$work/fit.html" --quiet >/dev/null
HYPERPLAN_REPORT_OUT="$work" "$report_tests" "[.browser]" >/dev/null

# page and the fills its screenshot must show (compute indigo, prefetch green, stall red)
check_page() {
  local page=$1
  shift
  xmllint --noout "$work/$page.html"
  local xml_elements dom_elements
  xml_elements=$(xmllint --xpath 'count(//*)' "$work/$page.html")
  chromium_headless --dump-dom "file://$work/$page.html" >"$work/$page.dom"
  # Text and attribute values are escaped in the serialised DOM, so '<' + letter starts a tag.
  dom_elements=$(grep -o '<[a-zA-Z]' "$work/$page.dom" | wc -l)
  if [ "$xml_elements" != "$dom_elements" ]; then
    echo "$page.html: $xml_elements elements as XML, $dom_elements as parsed by Chromium" >&2
    return 1
  fi
  chromium_headless --screenshot="$work/$page.png" --window-size=1400,2000 \
    "file://$work/$page.html" >/dev/null
  node tests/report/png_check.js "$work/$page.png" "$@"
}

check_page plan 6366f1 059669
# the fit page: its points (plan blue) and its green verdict badge (dcfce7)
check_page fit 2563eb dcfce7
check_page tiny 6366f1 059669 dc2626
check_page chain 6366f1 059669 dc2626
# the verdict badges: red's background (fee2e2), amber's (fef3c7); neither page is green
check_page infeasible 6366f1 fee2e2
check_page overhead 6366f1 fef3c7
if grep -q 'badge good' "$work/infeasible.html" "$work/overhead.html"; then
  echo "a failed gate's page shows a green badge" >&2
  exit 1
fi
echo "browser test: every report rendered"
