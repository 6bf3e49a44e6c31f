// Measured per-node kernel times from ONNX Runtime's profiling output.
//
// With `SessionOptions.enable_profiling`, ONNX Runtime writes a Chrome-trace JSON array (or an
// object whose "traceEvents" holds it). Each node run is an event {"cat": "Node", "name":
// "<node name>_kernel_time", "dur": <microseconds>, "args": {"op_name": ...}}; fences, session
// and executor events are ignored. A node seen in several runs (or several times in one run)
// gets the median of its durations: the first run's allocations and cold caches then weigh
// no more than any other outlier, where a mean or a sum would carry them. The median of an
// even count is the mean of the middle two, rounded down to a whole nanosecond.
// Cost: one parse of the file (nlohmann::json holds it in memory, ~10x the file's size) and a
// sort per node. Limits: names are matched as written; nodes that ONNX Runtime's graph
// optimizations fused or renamed keep their own name only where the fused node kept it
// (profile with graph optimizations off for a one-to-one match).
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace hyperplan {

struct MeasuredNodeTimes {
  std::map<std::string, int64_t> median_ns;  // node name -> median kernel time
  int64_t kernel_events = 0;                 // "_kernel_time" events read
  int64_t most_runs = 0;                     // the most events any one node had
};

// Throws Error(kInputFile) naming `path` (and the entry's index, for a bad entry): the file
// cannot be read, is not JSON (with line and column), is not an event array, an event's
// "dur" is missing, negative or not a number, or no event is a node's kernel time.
MeasuredNodeTimes ReadOrtProfile(const std::string& path);

// The same from text already in memory; `source_name` stands for the file in messages.
MeasuredNodeTimes ParseOrtProfile(const std::string& json_text, const std::string& source_name);

}  // namespace hyperplan
