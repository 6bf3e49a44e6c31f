// Calibration: what `hyperplan calibrate` measures on a GPU machine, the fits it draws from
// the measurements, and the profile YAML it writes from them. Plain C++ (no CUDA): the CUDA
// layer (src/cuda/device.h) fills a Calibration, and everything here is tested without a GPU.
//
// - FitLatencyBandwidth: time = latency + bytes / bandwidth from (bytes, ns) samples, by least
//   squares on the relative error (each sample weighted 1/time^2), so the small transfers that
//   fix the latency count as much as the large ones that fix the bandwidth. Exact on samples
//   that lie on such a line. Cost: O(samples).
// - ChooseChannels: the fewest streams per direction whose aggregate bandwidth is within 5%
//   of the best measured (one copy engine per direction usually saturates PCIe).
// - MeasuredProfileYaml: `base` (the profile the machine is closest to) with the measured
//   figures put in: the host link's bandwidth, latency and channels both ways, the device
//   tier's capacity (the smaller of the base's and the memory the device reports), HBM
//   bandwidth, and the bf16 / fp8 peaks (set to measured / efficiency, so the planner's
//   peak x efficiency is the measured throughput). Every other figure is copied from `base`.
//   Marked measured: the description, a MEASURED source naming the machine and the date, and
//   a `# [MEASURED]` comment beside each measured figure, with the samples behind the fits.
//   Quantities are written in base units (B, B/s, ns, FLOPS): exact, parsed back unchanged.
// Limits: the host link is the one between the device and the weight home (or the first tier
// linked both ways); links behind it (NVMe) are not measured. Class rules are written grouped
// by class, which keeps their order unless the base interleaves classes.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hyperplan/hardware.h"

namespace hyperplan::calibrate {

struct TransferSample {
  int64_t bytes = 0;
  int64_t time_ns = 0;
};

struct LinkFit {
  int64_t latency_ns = 0;
  int64_t bandwidth_bytes_per_s = 0;
};

// Throws Error(kInternal) with fewer than two distinct sizes, a non-positive time, or a fit
// whose bandwidth is not positive (times that fall as sizes grow).
LinkFit FitLatencyBandwidth(const std::vector<TransferSample>& samples);

struct StreamsBandwidth {
  int32_t streams = 1;
  int64_t bandwidth_bytes_per_s = 0;  // all streams together
};

// The entry of `measured` (non-empty) to plan with: see the header comment.
StreamsBandwidth ChooseChannels(const std::vector<StreamsBandwidth>& measured);

// One direction of the host link.
struct DirectionMeasurement {
  std::vector<TransferSample> samples;  // one stream, each size's median
  std::vector<StreamsBandwidth> streams;
  int64_t with_kernel_bandwidth_bytes_per_s = 0;  // one stream while a kernel runs; 0: none
};

struct Calibration {
  std::string device_name;  // "NVIDIA H100 80GB HBM3"
  std::string host_name;
  std::string date_utc;  // "2026-11-28T10:00:00Z"
  int64_t device_memory_bytes = 0;
  DirectionMeasurement host_to_device;
  DirectionMeasurement device_to_host;
  int64_t hbm_bandwidth_bytes_per_s = 0;  // read + written bytes per second
  int64_t bf16_flops_per_s = 0;           // 0: not measured (gemm_note says why)
  int64_t fp8_flops_per_s = 0;
  std::string gemm_note;
};

// The tier the host link joins to the device (see the header comment); throws Error(kProfile)
// when `base` has none.
TierId HostTier(const HardwareProfile& base);

// The measured profile (named `name`) as YAML text. Throws Error(kInternal) when a fit fails.
std::string MeasuredProfileYaml(const HardwareProfile& base, const Calibration& calibration,
                                const std::string& name);

// What calibrate prints: the measurements and fits, one line each, units in every number.
std::string FormatCalibration(const Calibration& calibration);

}  // namespace hyperplan::calibrate
