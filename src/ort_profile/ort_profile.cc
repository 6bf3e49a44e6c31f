// ONNX Runtime profiling JSON -> median kernel time per node (see adapters/ort_profile.h).
// nlohmann::json exceptions are caught here and rethrown as Error(kInputFile) naming the file.
#include "hyperplan/adapters/ort_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "hyperplan/error.h"
#include "hyperplan/text_file.h"

namespace hyperplan {
namespace {

constexpr std::string_view kKernelSuffix = "_kernel_time";
constexpr int64_t kNsPerUs = 1000;

Error BadFile(const std::string& source, const std::string& problem) {
  return Error(ErrorKind::kInputFile, fmt::format("{}: {}", source, problem));
}

// The event array: the document itself, or its "traceEvents" (Chrome's object form).
const nlohmann::json& EventArray(const nlohmann::json& document, const std::string& source) {
  if (document.is_array()) return document;
  if (document.is_object()) {
    const auto events = document.find("traceEvents");
    if (events != document.end() && events->is_array()) return *events;
  }
  throw BadFile(source,
                fmt::format("expected ONNX Runtime's profile (a JSON array of trace events, or an "
                            "object with a \"traceEvents\" array), found {}",
                            document.type_name()));
}

// The node name of a kernel-time event, or nullptr for any other event.
const std::string* KernelNodeName(const nlohmann::json& event) {
  const auto cat = event.find("cat");
  const auto name = event.find("name");
  if (cat == event.end() || name == event.end() || !cat->is_string() || !name->is_string()) {
    return nullptr;
  }
  if (cat->get_ref<const std::string&>() != "Node") return nullptr;
  const std::string& text = name->get_ref<const std::string&>();
  if (text.size() <= kKernelSuffix.size() ||
      std::string_view(text).substr(text.size() - kKernelSuffix.size()) != kKernelSuffix) {
    return nullptr;
  }
  return &text;
}

// "dur" in microseconds (integer or not), as whole nanoseconds.
int64_t DurationNs(const nlohmann::json& event, size_t index, const std::string& node,
                   const std::string& source) {
  auto bad = [&](const std::string& problem) {
    return BadFile(source, fmt::format("entry {} (node '{}'): \"dur\" {}", index, node, problem));
  };
  const auto dur = event.find("dur");
  if (dur == event.end()) throw bad("is missing");
  constexpr int64_t kMaxUs = INT64_MAX / kNsPerUs;
  if (dur->is_number_unsigned()) {  // nlohmann reads every non-negative integer as unsigned
    const uint64_t us = dur->get<uint64_t>();
    if (us > static_cast<uint64_t>(kMaxUs)) throw bad(fmt::format("is too large ({})", us));
    return static_cast<int64_t>(us) * kNsPerUs;
  }
  if (dur->is_number_integer()) throw bad(fmt::format("is negative ({})", dur->get<int64_t>()));
  if (dur->is_number_float()) {
    const double us = dur->get<double>();
    if (!std::isfinite(us) || us < 0) throw bad(fmt::format("is not a duration ({})", us));
    if (us > static_cast<double>(kMaxUs)) throw bad(fmt::format("is too large ({})", us));
    return std::llround(us * kNsPerUs);
  }
  throw bad(fmt::format("must be a number of microseconds, found {}", dur->type_name()));
}

int64_t Median(std::vector<int64_t>& samples_ns) {
  std::sort(samples_ns.begin(), samples_ns.end());
  const size_t mid = samples_ns.size() / 2;
  if (samples_ns.size() % 2 == 1) return samples_ns[mid];
  return samples_ns[mid - 1] + (samples_ns[mid] - samples_ns[mid - 1]) / 2;
}

}  // namespace

MeasuredNodeTimes ParseOrtProfile(const std::string& json_text, const std::string& source_name) {
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::parse_error& error) {
    // nlohmann's message already says where: "parse error at line 3, column 7: ...".
    throw BadFile(source_name, fmt::format("not valid JSON: {}", error.what()));
  }
  const nlohmann::json& events = EventArray(document, source_name);

  std::map<std::string, std::vector<int64_t>> samples_ns;
  MeasuredNodeTimes times;
  for (size_t index = 0; index < events.size(); ++index) {
    const nlohmann::json& event = events[index];
    if (!event.is_object()) {
      throw BadFile(source_name, fmt::format("entry {}: expected a trace event (an object), "
                                             "found {}",
                                             index, event.type_name()));
    }
    const std::string* name = KernelNodeName(event);
    if (name == nullptr) continue;
    const std::string node = name->substr(0, name->size() - kKernelSuffix.size());
    samples_ns[node].push_back(DurationNs(event, index, node, source_name));
    ++times.kernel_events;
  }
  if (times.kernel_events == 0) {
    throw BadFile(source_name,
                  "no node kernel times (events with \"cat\": \"Node\" and a name ending in "
                  "\"_kernel_time\"); profile at least one run with enable_profiling");
  }
  for (auto& [node, node_samples] : samples_ns) {
    times.most_runs = std::max<int64_t>(times.most_runs, static_cast<int64_t>(node_samples.size()));
    times.median_ns.emplace(node, Median(node_samples));
  }
  return times;
}

MeasuredNodeTimes ReadOrtProfile(const std::string& path) {
  return ParseOrtProfile(ReadTextFile(path), path);
}

}  // namespace hyperplan
