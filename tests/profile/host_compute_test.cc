// The host_compute section (schemas/profile.md): read and checked. Expected numbers
// are the YAML text converted by hand; columns are counted by hand (1-based).
#include <catch2/catch.hpp>
#include <string>

#include "hyperplan/adapters/profile_yaml.h"
#include "hyperplan/error.h"
#include "profile_problems.h"

namespace hyperplan {
namespace {

// A device, its host memory and the links between them; `host` is appended as given.
std::string WithHost(const std::string& host) {
  return "name: t\n"
         "tiers:\n"
         "  - {name: hbm, capacity: 80GB, device: true}\n"
         "  - {name: ddr, capacity: 1TB}\n"
         "links:\n"
         "  - {from: ddr, to: hbm, bandwidth: 25GB/s, reverse_bandwidth: 25GB/s}\n"
         "compute: {peak: {bfloat16: 100TFLOPS}, memory_bandwidth: 1TB/s}\n" +
         host;
}

TEST_CASE("host_compute is read per socket, fractions exactly in ppm", "[profile][host]") {
  const HardwareProfile profile = ParseProfileYaml(WithHost(R"yaml(host_compute:
  tier: ddr
  sockets: 2
  cores_per_socket: 32
  peak: {bf16: 72.0896TFLOPS, float: 4.5056TFLOPS}
  memory_bandwidth: 307.2GB/s
  memory_efficiency: 0.8
  efficiency: 0.5
  share: 0.125
  op_overhead: 2us
)yaml"),
                                                   "t.yaml");
  const HostComputeSpec& host = profile.host_compute;
  CHECK(host.present());
  CHECK(host.memory_tier == 1);  // ddr, the second tier
  CHECK(host.sockets == 2);
  CHECK(host.cores_per_socket == 32);
  CHECK(host.peak_flops_per_s.at(DType::kBFloat16) == 72'089'600'000'000);  // 72.0896 x 10^12
  CHECK(host.peak_flops_per_s.at(DType::kFloat32) == 4'505'600'000'000);
  CHECK(host.memory_bandwidth_bytes_per_s == 307'200'000'000);  // 307.2 x 10^9
  CHECK(host.memory_efficiency_ppm == 800'000);
  CHECK(host.efficiency_ppm == 500'000);
  CHECK(host.share_ppm == 125'000);
  CHECK(host.op_overhead_ns == 2'000);
}

TEST_CASE("without host_compute a profile has no host unit", "[profile][host]") {
  CHECK_FALSE(ParseProfileYaml(WithHost(""), "t.yaml").host_compute.present());
  // An empty section means the same as none, as for the other optional sections.
  CHECK_FALSE(ParseProfileYaml(WithHost("host_compute:\n"), "t.yaml").host_compute.present());
  // Defaults of the optional keys: every fraction 1, no dispatch cost.
  const HostComputeSpec host =
      ParseProfileYaml(WithHost("host_compute: {tier: ddr, sockets: 1, cores_per_socket: 8, "
                                "peak: {float: 1TFLOPS}, memory_bandwidth: 100GB/s}\n"),
                       "t.yaml")
          .host_compute;
  CHECK(host.efficiency_ppm == 1'000'000);
  CHECK(host.memory_efficiency_ppm == 1'000'000);
  CHECK(host.share_ppm == 1'000'000);
  CHECK(host.op_overhead_ns == 0);
}

TEST_CASE("host_compute problems name their line, column and field", "[profile][host]") {
  // Line 8 is "host_compute:"; its values start in column 9 for "  tier: ", column 12 for
  // "  sockets: ", column 21 for "  cores_per_socket: ", column 9 for "  peak: ".
  CHECK(Problems(WithHost("host_compute:\n  tier: nvme\n  sockets: 0\n  cores_per_socket: 8\n"
                          "  peak: {float: 1TFLOPS}\n  memory_bandwidth: 100GB/s\n")) ==
        "bad.yaml:9:9: host_compute.tier: unknown tier 'nvme'; tiers are hbm, ddr\n"
        "bad.yaml:10:12: host_compute.sockets: 0 is out of range; expected 1 to 64");
  CHECK(Problems(WithHost("host_compute:\n  tier: hbm\n  sockets: 1\n  cores_per_socket: 8\n"
                          "  peak: {bf16: 1TFLOPS}\n  memory_bandwidth: 100GB/s\n")) ==
        "bad.yaml:9:9: host_compute.tier: 'hbm' is the device tier; the host computes from host "
        "memory (a tier off the device)\n"
        "bad.yaml:12:9: host_compute.peak: float is required: every CPU computes in float, and a "
        "type without its own peak computes at float's rate");
  // A bad float entry is reported as that, not also as missing; share above 1 is out of range.
  CHECK(Problems(WithHost("host_compute:\n  tier: ddr\n  sockets: 1\n  cores_per_socket: 8\n"
                          "  peak: {float: -1TFLOPS}\n  memory_bandwidth: 100GB/s\n"
                          "  share: 1.5\n")) ==
        "bad.yaml:12:17: host_compute.peak.float: '-1TFLOPS': negative values are not allowed\n"
        "bad.yaml:14:10: host_compute.share: 1.5 is out of range; expected a fraction greater "
        "than 0 and at most 1");
  // A typo is suggested (and stands for the key, which is not also reported missing); a key
  // really missing is blamed on the section's mapping (line 9, column 3).
  CHECK(Problems(WithHost("host_compute:\n  tier: ddr\n  sockets: 1\n  cores_per_socket: 8\n"
                          "  peak: {float: 1TFLOPS}\n  memory_bandwith: 100GB/s\n")) ==
        "bad.yaml:13:3: host_compute: unknown key 'memory_bandwith'; did you mean "
        "'memory_bandwidth'?");
  CHECK(Problems(WithHost("host_compute:\n  tier: ddr\n  sockets: 1\n  cores_per_socket: 8\n"
                          "  peak: {float: 1TFLOPS}\n")) ==
        "bad.yaml:9:3: host_compute: missing required key 'memory_bandwidth'");
}

}  // namespace
}  // namespace hyperplan
