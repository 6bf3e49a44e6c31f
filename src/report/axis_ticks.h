// Axis ticks: round values and their labels for a time axis (ns) and a byte axis.
//
// A time axis steps by 1, 2 or 5 x 10^k ns ("0", "200 us", "400 us"); a byte axis by a power
// of two, so every multiple is round in binary units ("256 MiB", "512 MiB", "768 MiB",
// "1 GiB", "1.25 GiB") where a decimal step would print "1000 KiB". The step is the smallest
// that needs at most `max_ticks` intervals to reach the top. Labels are the units.h forms
// with trailing zeros dropped ("1.50 GiB" -> "1.5 GiB"). Cost: O(max_ticks).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hyperplan::report {

struct AxisTick {
  int64_t value = 0;
  std::string label;
};

struct Axis {
  int64_t floor = 0;  // the axis starts here: 0, or a multiple of the step (ByteAxisFrom)
  int64_t top = 1;    // the axis ends here: a whole number of steps, at least the data maximum
  std::vector<AxisTick> ticks;  // 0, step, 2 * step, ..., top
};

// Ticks for [0, max_ns]; the axis top is max_ns itself when it is not a multiple of the step
// (time runs to the makespan, no further), and the last tick is the last multiple below it.
Axis TimeAxis(int64_t max_ns, int max_ticks);

// Ticks for [0, top] where top is the first multiple of the step at or above max_bytes.
Axis ByteAxis(int64_t max_bytes, int max_ticks);

// Ticks for [floor, top] around [min_bytes, max_bytes]: the step as ByteAxis picks it for the
// span max - min, floor the last multiple of it at or below min_bytes, top the first at or
// above max_bytes (so up to max_ticks + 1 intervals). For a zoom on data far from zero.
Axis ByteAxisFrom(int64_t min_bytes, int64_t max_bytes, int max_ticks);

// "1.50 GiB" -> "1.5 GiB", "2.00 ms" -> "2 ms", "512 B" unchanged.
std::string TrimTrailingZeros(const std::string& quantity_text);

}  // namespace hyperplan::report
