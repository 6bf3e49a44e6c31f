// The report's style sheet. Colours: plan blue, before grey, budget red; compute indigo, host
// compute slate, prefetch green, store amber, detach violet, stalls red. No '<' or '&' anywhere
// (the page is also well-formed XML). Written as five parts, one per kind of element they style,
// joined once; the joined text is the sheet every report and fit page embeds.
#include <string>

#include "report/sections.h"

namespace hyperplan::report {
namespace {

// The page: colours, type, sections and their headings, badges and alerts.
constexpr char kPageCss[] = R"css(
:root { --plan: #2563eb; --baseline: #6b7280; --budget: #dc2626; --capacity: #111827;
  --compute: #6366f1; --host: #475569; --prefetch: #059669; --store: #d97706; --detach: #7c3aed;
  --stall: #dc2626; --tier: #0891b2; --ink: #1f2937; --muted: #6b7280; --line: #e5e7eb; }
* { box-sizing: border-box; }
body { margin: 0; background: #f8fafc; color: var(--ink);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
main { max-width: 1240px; margin: 0 auto; padding: 24px 20px 48px; }
header h1 { font-size: 22px; margin: 0 0 4px; font-weight: 650; }
h1 .name { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-weight: 600; }
.subtitle { margin: 0 0 16px; color: var(--muted); }
h2 { font-size: 17px; margin: 0 0 10px; }
h3 { font-size: 14px; margin: 14px 0 6px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 8px;
  padding: 16px 18px; margin: 16px 0; }
figure { margin: 0; }
svg { display: block; width: 100%; height: auto; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 999px; font-size: 12px;
  font-weight: 600; }
.badge.good { background: #dcfce7; color: #166534; }
.badge.bad { background: #fee2e2; color: #991b1b; }
.badge.neutral { background: #e5e7eb; color: #374151; }
.badge.warn { background: #fef3c7; color: #92400e; }
.alert { margin: 0 0 16px; padding: 8px 12px; border-radius: 6px; border-left: 4px solid; }
.alert.bad { background: #fef2f2; border-color: #dc2626; color: #7f1d1d; }
.alert.warn { background: #fffbeb; border-color: #d97706; color: #78350f; })css";

// The summary's cards and the charts' legends and keys.
constexpr char kCardsCss[] = R"css(
.cards { display: grid; grid-template-columns: repeat(4, 1fr); gap: 12px; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; }
.card-title { font-size: 12px; text-transform: uppercase; letter-spacing: .04em;
  color: var(--muted); }
.card-value { font-size: 24px; font-weight: 650; margin: 2px 0; }
.card-detail { font-size: 12px; color: var(--muted); }
.legend { display: flex; flex-wrap: wrap; gap: 6px 18px; font-size: 12px; margin: 0 0 6px;
  color: #374151; }
.legend .muted { margin-left: auto; }
.key { display: inline-block; width: 14px; height: 10px; margin-right: 6px;
  vertical-align: -1px; border-radius: 2px; }
.key.plan { background: var(--plan); }
.key.baseline { border: 1.5px dashed var(--baseline); background: #f3f4f6; }
.key.budget { height: 0; border-top: 2px dashed var(--budget); border-radius: 0; }
.key.capacity { height: 0; border-top: 2px dotted var(--capacity); border-radius: 0; }
.key.compute { background: var(--compute); } .key.stall { background: var(--stall); }
.key.detach { background: var(--detach); } .key.prefetch { background: var(--prefetch); }
.key.store { background: var(--store); } .key.host { background: var(--host); })css";

// Charts: grid, axes, memory curves, budget and capacity rules, notes and markers.
constexpr char kChartCss[] = R"css(
.grid { stroke: var(--line); stroke-width: 1; fill: none; }
.axis { stroke: #9ca3af; stroke-width: 1; fill: none; }
.tick { font-size: 11px; fill: var(--muted); }
.area { stroke: none; }
.area.plan { fill: var(--plan); fill-opacity: .16; }
.line.plan { stroke: var(--plan); stroke-width: 1.5; fill: none; }
.area.baseline { fill: var(--baseline); fill-opacity: .08; }
.line.baseline { stroke: var(--baseline); stroke-width: 1.2; stroke-dasharray: 5 3; fill: none; }
.area.tier { fill: var(--tier); fill-opacity: .18; }
.line.tier { stroke: var(--tier); stroke-width: 1.5; fill: none; }
.rule { fill: none; stroke-width: 1.5; }
.rule.budget { stroke: var(--budget); stroke-dasharray: 7 4; }
.rule.capacity { stroke: var(--capacity); stroke-dasharray: 2 3; }
.note { font-size: 11px; fill: #374151; paint-order: stroke; stroke: #fff; stroke-width: 3px;
  stroke-linejoin: round; }
.note.strong { font-weight: 650; }
.note.budget { fill: var(--budget); }
.marker { stroke: #fff; stroke-width: 1.5; }
.marker.plan { fill: var(--plan); }
.marker.baseline { fill: var(--baseline); })css";

// The streams' lanes and their bars (s1..s4: the density bands of a crowded lane).
constexpr char kLanesCss[] = R"css(
.lane { fill: #f1f5f9; fill-opacity: .75; }
.lane-label { font-size: 11px; fill: #374151; }
.bar.compute { fill: var(--compute); } .bar.stall { fill: var(--stall); }
.bar.detach { fill: var(--detach); } .bar.prefetch { fill: var(--prefetch); }
.bar.store { fill: var(--store); } .bar.host { fill: var(--host); }
.bar.s1 { fill-opacity: .25; } .bar.s2 { fill-opacity: .5; } .bar.s3 { fill-opacity: .75; }
.bar.s4 { fill-opacity: 1; }
rect.bar:hover { fill-opacity: .6; })css";

// Tables (peaks, decisions, summary, comparison), definition lists, code; narrow screens.
constexpr char kTablesCss[] = R"css(
.note-text { font-size: 12px; color: var(--muted); margin: 6px 0; }
.peaks { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
table { border-collapse: collapse; width: 100%; font-size: 12.5px; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line);
  vertical-align: top; }
thead th { font-weight: 600; color: var(--muted); border-bottom: 1px solid #d1d5db;
  white-space: nowrap; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.value { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px;
  word-break: break-all; }
.why { color: #374151; min-width: 220px; }
.nowrap { white-space: nowrap; }
table.decisions td.value { white-space: nowrap; word-break: normal; }
.muted { color: var(--muted); }
tr.total td { font-weight: 600; border-bottom: none; }
table.summary { max-width: 820px; }
table.summary tbody th { font-weight: 500; }
.reason { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px;
  background: #f3f4f6; padding: 0 5px; border-radius: 4px; }
ul.reasons { display: flex; flex-wrap: wrap; gap: 6px 16px; list-style: none; padding: 0;
  margin: 4px 0 8px; }
dl { display: grid; grid-template-columns: 160px 1fr; gap: 4px 12px; margin: 0; }
dt { color: var(--muted); }
dd { margin: 0; }
code { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px;
  background: #f3f4f6; padding: 0 4px; border-radius: 4px; word-break: break-all; }
@media (max-width: 900px) { .cards { grid-template-columns: repeat(2, 1fr); }
  .peaks { grid-template-columns: 1fr; } })css"
                              "\n";

}  // namespace

const char* ReportStyleSheet() {
  static const std::string sheet =
      std::string(kPageCss) + kCardsCss + kChartCss + kLanesCss + kTablesCss;
  return sheet.c_str();
}

}  // namespace hyperplan::report
