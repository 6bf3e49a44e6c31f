// The `compute` section: what the device computes per second, per element type.
//
// Checks: at least one peak, each keyed by an element type dtype.h knows (aliases such as
// bf16 count as the type they name, so bf16 and bfloat16 together are a repeat) and a
// positive FLOP/s rate; memory bandwidth positive; efficiency and memory_efficiency fractions
// in (0, 1] stored exactly in parts per million; launch overheads durations; `launch` eager or
// graph, and graph needs its per-kernel cost (graph_kernel_overhead); fuse_attention a boolean
// (default true). Cost: linear in the entries.
#include <fmt/format.h>

#include <array>
#include <map>
#include <optional>
#include <string>

#include "profile/sections.h"

namespace hyperplan::profile {
namespace {

constexpr std::array<KeySpec, 8> kComputeKeys = {{
    {"peak", true},
    {"memory_bandwidth", true},
    {"efficiency", false},
    {"memory_efficiency", false},
    {"kernel_launch_overhead", false},
    {"fuse_attention", false},
    {"launch", false},
    {"graph_kernel_overhead", false},
}};

constexpr int kPpmDigits = 6;  // efficiency is kept in parts per million
constexpr int64_t kOneInPpm = 1'000'000;

}  // namespace

void ReadPeakTable(const Field& field, std::map<DType, int64_t>& peaks, Diagnostics& diagnostics) {
  std::optional<std::vector<Entry>> entries = ReadEntries(field, diagnostics);
  if (!entries) return;
  if (entries->empty()) {
    diagnostics.Report(field.mark(), field.Blame("at least one element type's peak is required"));
    return;
  }
  std::map<DType, int> first_line;
  for (const Entry& entry : *entries) {
    const std::optional<DType> dtype = ParseDType(entry.key);
    const std::optional<int64_t> flops_per_s =
        ReadQuantity(entry.field, Quantity::kFlopsPerSecond, Sign::kPositive, diagnostics);
    if (!dtype) {
      diagnostics.Report(entry.field.key_mark,
                         field.Blame(fmt::format("unknown element type '{}'; expected a name "
                                                 "such as float, float16, bfloat16, "
                                                 "float8e4m3fn or int8",
                                                 entry.key)));
      continue;
    }
    const int line = entry.field.key_mark.line + 1;
    if (auto [it, inserted] = first_line.emplace(*dtype, line); !inserted) {
      diagnostics.Report(entry.field.key_mark,
                         entry.field.Blame(fmt::format("{} already has a peak (line {})",
                                                       DTypeName(*dtype), it->second)));
      continue;
    }
    if (flops_per_s) peaks[*dtype] = *flops_per_s;
  }
}

std::optional<int64_t> ReadFraction(const Field& field, Diagnostics& diagnostics) {
  std::optional<int64_t> ppm = ReadFixedPoint(field, kPpmDigits, diagnostics);
  if (!ppm) return std::nullopt;
  if (*ppm <= 0 || *ppm > kOneInPpm) {
    diagnostics.Report(field.mark(), field.Blame(fmt::format("{} is out of range; expected a "
                                                             "fraction greater than 0 and at "
                                                             "most 1",
                                                             field.value.Scalar())));
    return std::nullopt;
  }
  return ppm;
}

namespace {

int64_t ReadDuration(const Field& field, Diagnostics& diagnostics) {
  return ReadQuantity(field, Quantity::kDuration, Sign::kNonNegative, diagnostics).value_or(0);
}

// `launch: eager | graph`; graph replays need their per-kernel cost stated, not assumed 0.
void ReadLaunchMode(const Mapping& mapping, ComputeSpec& compute, Diagnostics& diagnostics) {
  const Field* launch = mapping.Find("launch");
  if (launch == nullptr) return;
  const std::optional<std::string> mode = ReadString(*launch, diagnostics);
  if (!mode) return;
  if (*mode == "eager") {
    compute.launch_mode = LaunchMode::kEager;
  } else if (*mode == "graph") {
    compute.launch_mode = LaunchMode::kGraph;
    if (mapping.Find("graph_kernel_overhead") == nullptr) {
      diagnostics.Report(launch->mark(),
                         launch->Blame("graph needs compute.graph_kernel_overhead, the cost of "
                                       "one kernel replayed from a captured graph"));
    }
  } else {
    diagnostics.Report(launch->mark(),
                       launch->Blame(fmt::format("unknown launch mode '{}'; expected eager (one "
                                                 "host launch per kernel) or graph (replayed "
                                                 "from a captured graph)",
                                                 *mode)));
  }
}

}  // namespace

void ReadCompute(const Field& field, ComputeSpec& compute, Diagnostics& diagnostics) {
  std::optional<Mapping> mapping = Mapping::Read(field, kComputeKeys, diagnostics);
  if (!mapping) return;
  if (const Field* peak = mapping->Find("peak")) {
    ReadPeakTable(*peak, compute.peak_flops_per_s, diagnostics);
  }
  if (const Field* bandwidth = mapping->Find("memory_bandwidth")) {
    compute.memory_bandwidth_bytes_per_s =
        ReadQuantity(*bandwidth, Quantity::kBytesPerSecond, Sign::kPositive, diagnostics)
            .value_or(0);
  }
  if (const Field* efficiency = mapping->Find("efficiency")) {
    if (std::optional<int64_t> ppm = ReadFraction(*efficiency, diagnostics)) {
      compute.efficiency_ppm = *ppm;
    }
  }
  if (const Field* efficiency = mapping->Find("memory_efficiency")) {
    if (std::optional<int64_t> ppm = ReadFraction(*efficiency, diagnostics)) {
      compute.memory_efficiency_ppm = *ppm;
    }
  }
  if (const Field* overhead = mapping->Find("kernel_launch_overhead")) {
    compute.kernel_launch_overhead_ns = ReadDuration(*overhead, diagnostics);
  }
  if (const Field* fuse = mapping->Find("fuse_attention")) {
    compute.fuse_attention = ReadBool(*fuse, diagnostics).value_or(compute.fuse_attention);
  }
  if (const Field* overhead = mapping->Find("graph_kernel_overhead")) {
    compute.graph_kernel_overhead_ns = ReadDuration(*overhead, diagnostics);
  }
  ReadLaunchMode(*mapping, compute, diagnostics);
}

}  // namespace hyperplan::profile
