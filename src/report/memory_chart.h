// Memory chart: bytes on one tier over simulated time, as an SVG.
//
// Each series is a step curve already cut into the chart's columns (its min and max per
// pixel). A filled series draws the area under its per-pixel maximum with a line on top, and
// the area under its per-pixel minimum over it, so a pixel that swings between levels shows as
// a lighter band above a darker floor and no peak is lost, however short. An unfilled series
// draws its maximum as a line. Horizontal rules mark a budget or a capacity; markers mark a
// peak, with up to a few lines of text beside it. The byte axis reaches the largest of the
// series, rules and markers, from zero or (floor_at_data) from near the smallest. Cost: O(columns x
// series); a few KB per series, whatever the plan.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "report/time_columns.h"

namespace hyperplan::report {

struct MemorySeries {
  std::vector<ColumnRange> columns;  // BucketStepCurve over the chart's TimeColumns
  int64_t end_ns = 0;                // not drawn past here (the curve's own makespan)
  std::string css_class;             // colours it: "plan", "baseline", "tier"
  bool filled = true;
};

struct BytesRule {
  int64_t bytes = 0;
  std::string css_class;     // "budget", "capacity"
  std::string label;         // drawn at the rule's right end
  bool label_below = false;  // under the line, so two close rules keep legible labels
};

struct PeakMarker {
  int64_t time_ns = 0;
  int64_t bytes = 0;
  std::string css_class;
  std::vector<std::string> lines;  // first line bold
  bool text_below = false;         // put the text under the marker instead of over it
};

struct MemoryChart {
  int height_px = 300;
  // The byte axis starts near the lowest per-pixel maximum (a multiple of its step) instead of
  // at zero: a zoom on a curve that stays high. Levels below the floor are drawn at it.
  bool floor_at_data = false;
  std::string label;  // for screen readers
  std::vector<MemorySeries> series;
  std::vector<BytesRule> rules;
  std::vector<PeakMarker> markers;
};

std::string RenderMemoryChart(const MemoryChart& chart, const TimeColumns& columns);

}  // namespace hyperplan::report
