// HardwareProfile: the machine a plan targets (memory tiers, links, compute peaks).
//
// Built by the YAML adapter from a profile file, from the embedded default, or by tests in a
// few lines. All quantities are integers in base units (bytes, ns, bytes/s, FLOP/s) so that
// every derived time is exact and outputs are byte-identical run to run.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "hyperplan/dtype.h"
#include "hyperplan/graph.h"

namespace hyperplan {

using TierId = int32_t;
inline constexpr TierId kNoTier = -1;

struct Tier {
  std::string name;  // "hbm", "ddr", "pool", "nvme", ...
  int64_t capacity_bytes = 0;
  bool is_device = false;  // exactly one tier is the device
  // Every offset a plan gives in this tier (device arena, tier buffer) is a multiple of it, a
  // power of two. 1 here (byte-exact, as tests build profiles); profile files default to 256.
  int64_t alignment_bytes = 1;
};

// A directed transfer path. A bidirectional connection is two links.
struct Link {
  TierId from = kNoTier;
  TierId to = kNoTier;
  int64_t bandwidth_bytes_per_s = 0;  // per link, shared by its channels
  int64_t latency_ns = 0;             // paid once per transfer
  int32_t channels = 1;               // copy streams that may run at once on this link
};

// How the runtime issues kernels: one host launch each (eager), or replayed from a captured
// graph (CUDA graphs, HIP graphs), where each kernel costs only the device-side gap.
enum class LaunchMode { kEager, kGraph };

struct ComputeSpec {
  std::map<DType, int64_t> peak_flops_per_s;  // dense peak per element type
  // The runtime runs spelled-out attention (MatMul, Softmax, MatMul and the repeated cache) as
  // one fused kernel, as FlashAttention, PyTorch's SDPA and ONNX Runtime's fusion do.
  bool fuse_attention = true;
  int64_t memory_bandwidth_bytes_per_s = 0;  // device memory bandwidth, datasheet peak
  int64_t efficiency_ppm = 1'000'000;        // fraction of peak FLOP/s reached, ppm
  // Sustained over peak device memory bandwidth (a STREAM-like measurement), ppm.
  int64_t memory_efficiency_ppm = 1'000'000;
  int64_t kernel_launch_overhead_ns = 0;  // per kernel launched eagerly
  LaunchMode launch_mode = LaunchMode::kEager;
  int64_t graph_kernel_overhead_ns = 0;  // per kernel replayed from a captured graph

  // What one kernel costs to start under the launch mode.
  int64_t LaunchOverheadNs() const {
    return launch_mode == LaunchMode::kGraph ? graph_kernel_overhead_ns : kernel_launch_overhead_ns;
  }
};

// The host's CPUs as a second compute unit (issue 30: llama.cpp's -ngl/-ot, KTransformers,
// FlexGen and ZeRO-Offload compute where the data lives). Figures are per socket, as
// datasheets and STREAM runs give them; `share_ppm` is the part of the whole host one device's
// plan may use (1/8 on an eight-GPU server whose host tier is an eighth of its memory).
// `sockets == 0` means the profile has no host unit. Costed by hyperplan/host_cost.h.
struct HostComputeSpec {
  TierId memory_tier = kNoTier;  // the host memory it computes from (a non-device tier)
  int32_t sockets = 0;           // NUMA sockets
  int32_t cores_per_socket = 0;  // informational: the peaks already count the cores
  // Dense peak per element type, one socket; `float` is always present (profiles require it).
  std::map<DType, int64_t> peak_flops_per_s;
  int64_t memory_bandwidth_bytes_per_s = 0;   // one socket's channels x rate x width
  int64_t efficiency_ppm = 1'000'000;         // fraction of peak FLOP/s reached, ppm
  int64_t memory_efficiency_ppm = 1'000'000;  // STREAM triad over memory_bandwidth, ppm
  int64_t share_ppm = 1'000'000;              // part of the whole host this device uses, ppm
  int64_t op_overhead_ns = 0;                 // per op dispatched (a thread-pool barrier)

  bool present() const { return sockets > 0; }
  // One socket's peak for an element type: its own entry, else float's.
  int64_t PeakFlopsPerSocket(DType dtype) const;
};

// Which unit runs a node. The device is the accelerator whose memory is the device tier; the
// host is HardwareProfile::host_compute, present only when the profile has the section.
enum class ComputeUnit : uint8_t { kDevice, kHost };

std::string_view ComputeUnitName(ComputeUnit unit);  // "device", "host"

// A user rule: values whose name matches `regex` (ECMAScript, whole name) get `value_class`.
struct ClassRule {
  ValueClass value_class;
  std::string regex;
};

// Where a profile's figures come from: a tag its comments cite ("H100-DS") and the document.
struct ProfileSource {
  std::string tag;
  std::string citation;
};

struct HardwareProfile {
  std::string name;
  std::string source;       // file path, or "embedded (configs/<name>.yaml)" for a shipped profile
  std::string description;  // one line, informational
  std::vector<ProfileSource> sources;  // informational: what the figures are taken from
  std::vector<Tier> tiers;
  std::vector<Link> links;
  ComputeSpec compute;
  HostComputeSpec host_compute;  // sockets == 0: no host compute unit
  TierId device_tier = kNoTier;
  TierId weight_home_tier = kNoTier;  // where weights live when offloaded; kNoTier: device
  std::vector<ClassRule> class_rules;

  TierId FindTier(const std::string& name) const;
  // The direct link from -> to, or nullptr.
  const Link* FindLink(TierId from, TierId to) const;
  // Peak FLOP/s for an element type: its own entry, else float32's, else the largest entry.
  int64_t PeakFlopsPerS(DType dtype) const;
};

}  // namespace hyperplan
