// Calibration fits and the measured profile (see calibration.h).
#include "calibrate/calibration.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "hyperplan/dtype.h"
#include "hyperplan/error.h"
#include "hyperplan/units.h"

namespace hyperplan::calibrate {
namespace {

constexpr const char* kMeasured = "# [MEASURED]";

std::string Quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string SingleQuoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::string Ppm(int64_t ppm) { return fmt::format("{}.{:06d}", ppm / 1'000'000, ppm % 1'000'000); }

bool Linked(const HardwareProfile& profile, TierId a, TierId b) {
  return profile.FindLink(a, b) != nullptr;
}

// The link from -> to, with the measured direction's figures when it is the host link.
std::string LinkYaml(const HardwareProfile& base, const Link& link, TierId host,
                     const Calibration& calibration) {
  const bool to_device = link.from == host && link.to == base.device_tier;
  const bool to_host = link.from == base.device_tier && link.to == host;
  std::string out = fmt::format("  - from: {}\n    to: {}\n", base.tiers[link.from].name,
                                base.tiers[link.to].name);
  if (!to_device && !to_host) {
    return out + fmt::format("    bandwidth: {}B/s\n    latency: {}ns\n    channels: {}\n",
                             link.bandwidth_bytes_per_s, link.latency_ns, link.channels);
  }
  const DirectionMeasurement& measured =
      to_device ? calibration.host_to_device : calibration.device_to_host;
  const LinkFit fit = FitLatencyBandwidth(measured.samples);
  StreamsBandwidth chosen{1, fit.bandwidth_bytes_per_s};
  if (!measured.streams.empty()) chosen = ChooseChannels(measured.streams);
  const int64_t bandwidth =
      chosen.streams > 1 ? chosen.bandwidth_bytes_per_s : fit.bandwidth_bytes_per_s;
  out += fmt::format("    bandwidth: {}B/s  {} {} ({}: {} streams)\n", bandwidth, kMeasured,
                     FormatBandwidth(bandwidth),
                     chosen.streams > 1 ? "aggregate" : "fit of one stream", chosen.streams);
  out += fmt::format("    latency: {}ns  {} least-squares fit over {} sizes\n", fit.latency_ns,
                     kMeasured, measured.samples.size());
  out += fmt::format("    channels: {}  {} fewest streams within 5% of the best\n", chosen.streams,
                     kMeasured);
  for (const TransferSample& sample : measured.samples) {
    out += fmt::format("    #   {} B in {} ns\n", sample.bytes, sample.time_ns);
  }
  for (const StreamsBandwidth& streams : measured.streams) {
    out += fmt::format("    #   {} streams: {} B/s together\n", streams.streams,
                       streams.bandwidth_bytes_per_s);
  }
  if (measured.with_kernel_bandwidth_bytes_per_s > 0) {
    out += fmt::format("    #   one stream beside a running kernel: {} B/s\n",
                       measured.with_kernel_bandwidth_bytes_per_s);
  }
  return out;
}

std::string ComputeYaml(const HardwareProfile& base, const Calibration& calibration) {
  const ComputeSpec& compute = base.compute;
  std::map<DType, std::pair<int64_t, bool>> peaks;  // flops, measured
  for (const auto& [dtype, flops] : compute.peak_flops_per_s) peaks[dtype] = {flops, false};
  // Peak x efficiency is what the planner assumes: make it the measured throughput.
  const auto measured_peak = [&](int64_t flops) {
    return static_cast<int64_t>(static_cast<long double>(flops) * 1'000'000 /
                                static_cast<long double>(compute.efficiency_ppm));
  };
  if (calibration.bf16_flops_per_s > 0) {
    peaks[DType::kBFloat16] = {measured_peak(calibration.bf16_flops_per_s), true};
  }
  if (calibration.fp8_flops_per_s > 0) {
    peaks[DType::kFloat8E4M3FN] = {measured_peak(calibration.fp8_flops_per_s), true};
  }
  std::string out = "compute:\n  peak:\n";
  for (const auto& [dtype, entry] : peaks) {
    out += fmt::format("    {}: {}FLOPS", DTypeName(dtype), entry.first);
    if (entry.second) {
      out += fmt::format(
          "  {} GEMM {} sustained / efficiency", kMeasured,
          FormatFlopsPerSecond(dtype == DType::kBFloat16 ? calibration.bf16_flops_per_s
                                                         : calibration.fp8_flops_per_s));
    }
    out += "\n";
  }
  const int64_t hbm = calibration.hbm_bandwidth_bytes_per_s > 0
                          ? calibration.hbm_bandwidth_bytes_per_s
                          : compute.memory_bandwidth_bytes_per_s;
  out += fmt::format("  memory_bandwidth: {}B/s", hbm);
  if (calibration.hbm_bandwidth_bytes_per_s > 0) {
    out += fmt::format("  {} {} device-to-device copy, bytes read + written", kMeasured,
                       FormatBandwidth(hbm));
  }
  out += fmt::format("\n  efficiency: {}\n  kernel_launch_overhead: {}ns\n",
                     Ppm(compute.efficiency_ppm), compute.kernel_launch_overhead_ns);
  return out;
}

std::string ClassesYaml(const HardwareProfile& base) {
  if (base.class_rules.empty()) return "";
  std::vector<ValueClass> order;
  std::map<ValueClass, std::vector<std::string>> patterns;
  for (const ClassRule& rule : base.class_rules) {
    if (!patterns.count(rule.value_class)) order.push_back(rule.value_class);
    patterns[rule.value_class].push_back(SingleQuoted(rule.regex));
  }
  std::string out = "classes:\n";
  for (ValueClass value_class : order) {
    out += fmt::format("  {}: [{}]\n", ValueClassName(value_class),
                       fmt::join(patterns[value_class], ", "));
  }
  return out;
}

}  // namespace

LinkFit FitLatencyBandwidth(const std::vector<TransferSample>& samples) {
  std::set<int64_t> sizes;
  long double s = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const TransferSample& sample : samples) {
    if (sample.time_ns <= 0 || sample.bytes < 0) {
      throw Error(ErrorKind::kInternal,
                  fmt::format("calibrate: a sample of {} B took {} ns: times must be positive",
                              sample.bytes, sample.time_ns));
    }
    sizes.insert(sample.bytes);
    const long double x = static_cast<long double>(sample.bytes);
    const long double y = static_cast<long double>(sample.time_ns);
    const long double w = 1.0L / (y * y);
    s += w;
    sx += w * x;
    sy += w * y;
    sxx += w * x * x;
    sxy += w * x * y;
  }
  if (sizes.size() < 2) {
    throw Error(ErrorKind::kInternal, "calibrate: a latency and bandwidth fit needs two sizes");
  }
  const long double slope_ns_per_byte = (s * sxy - sx * sy) / (s * sxx - sx * sx);
  const long double intercept_ns = (sy - slope_ns_per_byte * sx) / s;
  if (!(slope_ns_per_byte > 0)) {
    throw Error(ErrorKind::kInternal,
                "calibrate: transfer times do not grow with size: no bandwidth to fit");
  }
  LinkFit fit;
  fit.latency_ns = std::max<int64_t>(0, std::llround(intercept_ns));
  fit.bandwidth_bytes_per_s = std::llround(1e9L / slope_ns_per_byte);
  return fit;
}

StreamsBandwidth ChooseChannels(const std::vector<StreamsBandwidth>& measured) {
  if (measured.empty()) throw Error(ErrorKind::kInternal, "ChooseChannels: nothing measured");
  int64_t best = 0;
  for (const StreamsBandwidth& entry : measured) best = std::max(best, entry.bandwidth_bytes_per_s);
  StreamsBandwidth chosen = measured.front();
  bool found = false;
  for (const StreamsBandwidth& entry : measured) {
    // Within 5% of the best: 20 x bandwidth >= 19 x best, in integers.
    if (static_cast<long double>(entry.bandwidth_bytes_per_s) * 20 <
        static_cast<long double>(best) * 19) {
      continue;
    }
    if (!found || entry.streams < chosen.streams) chosen = entry;
    found = true;
  }
  return chosen;
}

TierId HostTier(const HardwareProfile& base) {
  const TierId device = base.device_tier;
  const TierId home = base.weight_home_tier;
  if (home != kNoTier && Linked(base, home, device) && Linked(base, device, home)) return home;
  for (size_t t = 0; t < base.tiers.size(); ++t) {
    const TierId tier = static_cast<TierId>(t);
    if (tier != device && Linked(base, tier, device) && Linked(base, device, tier)) return tier;
  }
  throw Error(ErrorKind::kProfile,
              fmt::format("{}: no tier is linked both ways to the device '{}': nothing for "
                          "calibrate's host link to measure",
                          base.source, base.tiers[device].name));
}

std::string MeasuredProfileYaml(const HardwareProfile& base, const Calibration& calibration,
                                const std::string& name) {
  const TierId host = HostTier(base);
  std::string out = fmt::format(
      "# Measured by `hyperplan calibrate` on {} (host {}), {}.\n"
      "# Figures marked [MEASURED] are this machine's; every other figure is copied from {}.\n"
      "# Schema: schemas/profile.md.\n",
      calibration.device_name, calibration.host_name, calibration.date_utc, base.source);
  out += fmt::format("name: {}\n", name);
  out += fmt::format("description: {}\n",
                     Quoted(fmt::format("{}, measured by hyperplan calibrate on {} (from {})",
                                        calibration.device_name, calibration.date_utc, base.name)));
  out += "sources:\n";
  out += fmt::format(
      "  MEASURED: {}\n",
      Quoted(fmt::format("hyperplan calibrate on {}, host {}, {}", calibration.device_name,
                         calibration.host_name, calibration.date_utc)));
  for (const ProfileSource& source : base.sources) {
    if (source.tag == "MEASURED") continue;
    out += fmt::format("  {}: {}\n", source.tag, Quoted(source.citation));
  }
  out += "tiers:\n";
  for (size_t t = 0; t < base.tiers.size(); ++t) {
    const Tier& tier = base.tiers[t];
    const bool device = static_cast<TierId>(t) == base.device_tier;
    int64_t capacity_bytes = tier.capacity_bytes;
    const bool measured = device && calibration.device_memory_bytes > 0 &&
                          calibration.device_memory_bytes < capacity_bytes;
    if (measured) capacity_bytes = calibration.device_memory_bytes;
    out += fmt::format("  - name: {}\n    capacity: {}B", tier.name, capacity_bytes);
    if (measured) out += fmt::format("  {} the memory the device reports", kMeasured);
    out += "\n";
    if (device) out += "    device: true\n";
    out += fmt::format("    alignment: {}B\n", tier.alignment_bytes);
  }
  if (!base.links.empty()) out += "links:\n";
  for (const Link& link : base.links) out += LinkYaml(base, link, host, calibration);
  out += ComputeYaml(base, calibration);
  if (base.weight_home_tier != kNoTier) {
    out += fmt::format("placement:\n  weight_home: {}\n", base.tiers[base.weight_home_tier].name);
  }
  out += ClassesYaml(base);
  return out;
}

std::string FormatCalibration(const Calibration& calibration) {
  std::string out = fmt::format("calibrate on {} (host {}), {}: {} of device memory\n",
                                calibration.device_name, calibration.host_name,
                                calibration.date_utc, FormatBytes(calibration.device_memory_bytes));
  const auto direction = [&](const char* label, const DirectionMeasurement& measured) {
    for (const TransferSample& sample : measured.samples) {
      out += fmt::format("  {} {:>12} B: {:>10} ns ({})\n", label, sample.bytes, sample.time_ns,
                         FormatBandwidth(static_cast<int64_t>(
                             static_cast<long double>(sample.bytes) * 1e9L / sample.time_ns)));
    }
    if (measured.samples.size() >= 2) {
      const LinkFit fit = FitLatencyBandwidth(measured.samples);
      out += fmt::format("  {} fit: latency {} ns, bandwidth {}\n", label, fit.latency_ns,
                         FormatBandwidth(fit.bandwidth_bytes_per_s));
    }
    for (const StreamsBandwidth& streams : measured.streams) {
      out += fmt::format("  {} {} streams: {} together\n", label, streams.streams,
                         FormatBandwidth(streams.bandwidth_bytes_per_s));
    }
    if (measured.with_kernel_bandwidth_bytes_per_s > 0) {
      out += fmt::format("  {} beside a running kernel: {}\n", label,
                         FormatBandwidth(measured.with_kernel_bandwidth_bytes_per_s));
    }
  };
  direction("h2d", calibration.host_to_device);
  direction("d2h", calibration.device_to_host);
  out += fmt::format("  hbm: {} (device-to-device copy, bytes read + written)\n",
                     FormatBandwidth(calibration.hbm_bandwidth_bytes_per_s));
  const auto gemm = [&](const char* label, int64_t flops) {
    out += flops > 0 ? fmt::format("  gemm {}: {}\n", label, FormatFlopsPerSecond(flops))
                     : fmt::format("  gemm {}: not measured ({})\n", label, calibration.gemm_note);
  };
  gemm("bf16", calibration.bf16_flops_per_s);
  gemm("fp8", calibration.fp8_flops_per_s);
  return out;
}

}  // namespace hyperplan::calibrate
