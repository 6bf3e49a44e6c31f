// Round axis ticks (see axis_ticks.h).
#include "report/axis_ticks.h"

#include <algorithm>
#include <limits>

#include "hyperplan/units.h"

namespace hyperplan::report {
namespace {

// The smallest step of the form 1, 2 or 5 x 10^k that covers `max` in `max_ticks` intervals.
int64_t DecimalStep(int64_t max, int max_ticks) {
  const int64_t intervals = std::max(1, max_ticks);
  for (int64_t scaled = 1; scaled <= std::numeric_limits<int64_t>::max() / 10; scaled *= 10) {
    for (int64_t mantissa : {1, 2, 5}) {
      if ((max - 1) / (mantissa * scaled) + 1 <= intervals) {
        return mantissa * scaled;
      }
    }
  }
  return std::numeric_limits<int64_t>::max() / 10;
}

// The smallest power of two that covers `max` in `max_ticks` intervals.
int64_t BinaryStep(int64_t max, int max_ticks) {
  const int64_t intervals = std::max(1, max_ticks);
  int64_t step = 1;
  while ((max - 1) / step + 1 > intervals && step <= std::numeric_limits<int64_t>::max() / 2) {
    step *= 2;
  }
  return step;
}

}  // namespace

std::string TrimTrailingZeros(const std::string& quantity_text) {
  const size_t dot = quantity_text.find('.');
  if (dot == std::string::npos) return quantity_text;
  size_t digits_end = dot + 1;
  while (digits_end < quantity_text.size() && quantity_text[digits_end] >= '0' &&
         quantity_text[digits_end] <= '9') {
    ++digits_end;
  }
  size_t keep = digits_end;
  while (keep > dot + 1 && quantity_text[keep - 1] == '0') --keep;
  if (keep == dot + 1) keep = dot;
  return quantity_text.substr(0, keep) + quantity_text.substr(digits_end);
}

Axis TimeAxis(int64_t max_ns, int max_ticks) {
  Axis axis;
  axis.top = std::max<int64_t>(1, max_ns);
  const int64_t step = DecimalStep(axis.top, max_ticks);
  for (int64_t value = 0; value <= axis.top; value += step) {
    axis.ticks.push_back({value, value == 0 ? "0" : TrimTrailingZeros(FormatDuration(value))});
    if (value > axis.top - step) break;
  }
  return axis;
}

Axis ByteAxis(int64_t max_bytes, int max_ticks) {
  const int64_t max = std::max<int64_t>(1, max_bytes);
  const int64_t step = BinaryStep(max, max_ticks);
  Axis axis;
  axis.top = ((max - 1) / step + 1) * step;
  for (int64_t value = 0; value <= axis.top; value += step) {
    axis.ticks.push_back({value, value == 0 ? "0" : TrimTrailingZeros(FormatBytes(value))});
    if (value > axis.top - step) break;
  }
  return axis;
}

Axis ByteAxisFrom(int64_t min_bytes, int64_t max_bytes, int max_ticks) {
  const int64_t min = std::max<int64_t>(0, min_bytes);
  const int64_t max = std::max<int64_t>(min + 1, max_bytes);
  const int64_t step = BinaryStep(max - min, max_ticks);
  Axis axis;
  axis.floor = min / step * step;
  axis.top = axis.floor + ((max - axis.floor - 1) / step + 1) * step;
  for (int64_t value = axis.floor; value <= axis.top; value += step) {
    axis.ticks.push_back({value, value == 0 ? "0" : TrimTrailingZeros(FormatBytes(value))});
    if (value > axis.top - step) break;
  }
  return axis;
}

}  // namespace hyperplan::report
