// Lane chart: what each stream does over simulated time, one row per stream, as an SVG.
//
// A lane with at most kMaxBarsPerLane items draws each as a bar (at least one pixel wide, so
// none vanishes) with a tooltip. A busier lane is drawn as a density band instead: per pixel
// column, the share of its time the stream is busy, in four shades (up to 25%, 50%, 75%,
// 100%); each shade is one path of merged runs. Items of zero duration (Detach, zero-cost
// nodes) draw as ticks, merged per column in the same way. So a lane costs at most a few
// hundred elements or a few paths, whatever the plan's size.
// Cost: O(items + columns) per lane.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "report/time_columns.h"

namespace hyperplan::report {

inline constexpr size_t kMaxBarsPerLane = 400;

struct Lane {
  std::string label;      // drawn left of the lane
  std::string css_class;  // "compute", "stall", "detach", "prefetch", "store"
  int height_px = 18;
  std::vector<TimeInterval> items;        // in time order; end == start for an instant
  std::vector<int32_t> ids;               // parallel to items: passed to the tooltip function
  std::vector<std::string> item_classes;  // parallel to items, or empty: css_class for all
};

// Tooltip text for an item's id (bars only).
using TooltipFn = std::function<std::string(int32_t id)>;

std::string RenderLaneChart(const std::vector<Lane>& lanes, const TimeColumns& columns,
                            const TooltipFn& tooltip, const std::string& label);

}  // namespace hyperplan::report
