// ParseProfileYaml on valid documents: defaults, reverse links, placement defaults, class
// rules and the YAML spellings the schema allows.
#include "hyperplan/adapters/profile_yaml.h"

#include <catch2/catch.hpp>
#include <string>

namespace hyperplan {
namespace {

TEST_CASE("A minimal profile gets every documented default", "[profile][yaml]") {
  const HardwareProfile profile = ParseProfileYaml(R"yaml(name: tiny
tiers:
  - name: hbm
    capacity: 1GiB
    device: true
compute:
  peak:
    float: 1TFLOPS
  memory_bandwidth: 1TB/s
)yaml",
                                                   "tiny.yaml");
  CHECK(profile.name == "tiny");
  CHECK(profile.source == "tiny.yaml");
  REQUIRE(profile.tiers.size() == 1);
  CHECK(profile.tiers[0].capacity_bytes == 1'073'741'824);  // 2^30
  CHECK(profile.device_tier == 0);
  CHECK(profile.links.empty());
  CHECK(profile.compute.peak_flops_per_s.at(DType::kFloat32) == 1'000'000'000'000);
  CHECK(profile.compute.memory_bandwidth_bytes_per_s == 1'000'000'000'000);
  CHECK(profile.compute.efficiency_ppm == 1'000'000);  // default 1
  CHECK(profile.compute.kernel_launch_overhead_ns == 0);
  CHECK(profile.compute.fuse_attention);  // default: the runtime fuses attention
  CHECK(profile.compute.memory_efficiency_ppm == 1'000'000);  // default 1: the datasheet
  CHECK(profile.compute.launch_mode == LaunchMode::kEager);   // default eager
  CHECK(profile.compute.graph_kernel_overhead_ns == 0);
  CHECK(profile.weight_home_tier == kNoTier);  // no other tier at all
  CHECK(profile.class_rules.empty());
  CHECK(profile.tiers[0].alignment_bytes == 256);  // the default for every tier in a file
}

TEST_CASE("Tier alignment: a byte quantity, per tier", "[profile][yaml]") {
  const HardwareProfile profile = ParseProfileYaml(R"yaml(name: t
tiers:
  - {name: hbm, capacity: 1GB, device: true, alignment: 512B}
  - {name: ddr, capacity: 8GB}
  - {name: nvme, capacity: 1TB, alignment: 4KiB}
compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s}
)yaml",
                                                   "t.yaml");
  CHECK(profile.tiers[0].alignment_bytes == 512);
  CHECK(profile.tiers[1].alignment_bytes == 256);   // default
  CHECK(profile.tiers[2].alignment_bytes == 4096);  // 4 x 1024
}

TEST_CASE("Link defaults and reverse_bandwidth", "[profile][yaml]") {
  const HardwareProfile profile = ParseProfileYaml(R"yaml(name: t
tiers:
  - {name: ddr, capacity: 8GB}
  - {name: hbm, capacity: 1GB, device: true}
  - {name: nvme, capacity: 1TB}
links:
  - {from: ddr, to: hbm, bandwidth: 10GB/s, reverse_bandwidth: 20GB/s, latency: 3us, channels: 2}
  - {from: nvme, to: ddr, bandwidth: 1GB/s}
compute:
  peak: {bf16: 2TFLOPS}
  memory_bandwidth: 1TB/s
)yaml",
                                                   "t.yaml");
  REQUIRE(profile.links.size() == 3);  // 2 from the first entry, 1 from the second
  const TierId ddr = 0, hbm = 1, nvme = 2;
  CHECK(profile.device_tier == hbm);
  const Link* down = profile.FindLink(ddr, hbm);
  REQUIRE(down != nullptr);
  CHECK(down->bandwidth_bytes_per_s == 10'000'000'000);
  CHECK(down->latency_ns == 3'000);
  CHECK(down->channels == 2);
  const Link* up = profile.FindLink(hbm, ddr);
  REQUIRE(up != nullptr);
  CHECK(up->bandwidth_bytes_per_s == 20'000'000'000);  // reverse_bandwidth
  CHECK(up->latency_ns == 3'000);                      // shared with the forward link
  CHECK(up->channels == 2);
  const Link* read = profile.FindLink(nvme, ddr);
  REQUIRE(read != nullptr);
  CHECK(read->latency_ns == 0);                   // default
  CHECK(read->channels == 1);                     // default
  CHECK(profile.FindLink(ddr, nvme) == nullptr);  // no reverse_bandwidth: one direction only
  // "bf16" is an alias of bfloat16
  CHECK(profile.compute.peak_flops_per_s.at(DType::kBFloat16) == 2'000'000'000'000);
  // ddr is the first non-device tier linked both ways to hbm
  CHECK(profile.weight_home_tier == ddr);
}

TEST_CASE("Default weight home needs links both ways", "[profile][yaml]") {
  // pool only sends to hbm; ddr comes later but is linked both ways, so ddr wins.
  const HardwareProfile profile = ParseProfileYaml(R"yaml(name: t
tiers:
  - {name: hbm, capacity: 1GB, device: true}
  - {name: pool, capacity: 8GB}
  - {name: ddr, capacity: 8GB}
links:
  - {from: pool, to: hbm, bandwidth: 1GB/s}
  - {from: ddr, to: hbm, bandwidth: 1GB/s, reverse_bandwidth: 1GB/s}
compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s}
)yaml",
                                                   "t.yaml");
  CHECK(profile.weight_home_tier == 2);

  // With only the one-way link there is no default home.
  const HardwareProfile one_way = ParseProfileYaml(R"yaml(name: t
tiers:
  - {name: hbm, capacity: 1GB, device: true}
  - {name: pool, capacity: 8GB}
links:
  - {from: pool, to: hbm, bandwidth: 1GB/s}
compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s}
)yaml",
                                                   "t.yaml");
  CHECK(one_way.weight_home_tier == kNoTier);
}

TEST_CASE("An explicit weight_home needs only a link towards the device", "[profile][yaml]") {
  const HardwareProfile profile = ParseProfileYaml(R"yaml(name: t
tiers:
  - {name: hbm, capacity: 1GB, device: true}
  - {name: ddr, capacity: 8GB}
  - {name: pool, capacity: 8GB}
links:
  - {from: ddr, to: hbm, bandwidth: 1GB/s, reverse_bandwidth: 1GB/s}
  - {from: pool, to: hbm, bandwidth: 1GB/s}
compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s}
placement:
  weight_home: pool
)yaml",
                                                   "t.yaml");
  CHECK(profile.weight_home_tier == 2);  // not the default (ddr, index 1)
}

TEST_CASE("Compute efficiency and launch overhead are exact", "[profile][yaml]") {
  const HardwareProfile profile = ParseProfileYaml(R"yaml(name: t
tiers: [{name: hbm, capacity: 1GB, device: true}]
compute:
  peak:
    float16: 1.5PFLOP/s
    int8: 3PFLOPS
  memory_bandwidth: 2.5TB/s
  efficiency: 0.125
  kernel_launch_overhead: 1.5us
)yaml",
                                                   "t.yaml");
  // 1.5 * 10^15
  CHECK(profile.compute.peak_flops_per_s.at(DType::kFloat16) == 1'500'000'000'000'000);
  CHECK(profile.compute.peak_flops_per_s.at(DType::kInt8) == 3'000'000'000'000'000);
  CHECK(profile.compute.memory_bandwidth_bytes_per_s == 2'500'000'000'000);
  CHECK(profile.compute.efficiency_ppm == 125'000);  // 0.125 * 10^6
  CHECK(profile.compute.kernel_launch_overhead_ns == 1'500);
}

TEST_CASE("fuse_attention: false describes an eager runtime", "[profile][yaml]") {
  const HardwareProfile profile = ParseProfileYaml(R"yaml(name: t
tiers: [{name: hbm, capacity: 1GB, device: true}]
compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s, fuse_attention: false}
)yaml",
                                                   "t.yaml");
  CHECK_FALSE(profile.compute.fuse_attention);
}

TEST_CASE("Sustained bandwidth and graph launches are read exactly", "[profile][yaml]") {
  const HardwareProfile profile = ParseProfileYaml(R"yaml(name: t
tiers: [{name: hbm, capacity: 1GB, device: true}]
compute:
  peak: {float: 1TFLOPS}
  memory_bandwidth: 3.35TB/s
  memory_efficiency: 0.866
  kernel_launch_overhead: 5us
  launch: graph
  graph_kernel_overhead: 0.5us
)yaml",
                                                   "t.yaml");
  CHECK(profile.compute.memory_efficiency_ppm == 866'000);  // 0.866 * 10^6
  CHECK(profile.compute.launch_mode == LaunchMode::kGraph);
  CHECK(profile.compute.graph_kernel_overhead_ns == 500);     // 0.5 us
  CHECK(profile.compute.kernel_launch_overhead_ns == 5'000);  // kept, unused under graph
  CHECK(profile.compute.LaunchOverheadNs() == 500);
}

TEST_CASE("Class rules keep document order, one pattern or a list", "[profile][yaml]") {
  const HardwareProfile profile = ParseProfileYaml(R"yaml(name: t
tiers: [{name: hbm, capacity: 1GB, device: true}]
compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s}
classes:
  kv_cache: ['cache\..*', 'kv_.*']
  optimizer_state: '.*\.adam_[mv]'
  activation: ['scratch_.*']
)yaml",
                                                   "t.yaml");
  REQUIRE(profile.class_rules.size() == 4);
  CHECK(profile.class_rules[0].value_class == ValueClass::kKvCache);
  CHECK(profile.class_rules[0].regex == "cache\\..*");
  CHECK(profile.class_rules[1].value_class == ValueClass::kKvCache);
  CHECK(profile.class_rules[1].regex == "kv_.*");
  CHECK(profile.class_rules[2].value_class == ValueClass::kOptimizerState);
  CHECK(profile.class_rules[2].regex == ".*\\.adam_[mv]");
  CHECK(profile.class_rules[3].value_class == ValueClass::kActivation);
}

TEST_CASE("Empty optional sections mean absent, quoted quantities are fine", "[profile][yaml]") {
  const HardwareProfile profile = ParseProfileYaml(R"yaml(---
name: "quoted name"
description: a description is informational only
tiers:
  - name: hbm
    capacity: "2 GiB"
    device: True
links:
placement:
classes:
compute:
  peak:
    float: '1 TFLOPS'
  memory_bandwidth: 1TB/s
  efficiency: 1
...
)yaml",
                                                   "t.yaml");
  CHECK(profile.name == "quoted name");
  CHECK(profile.tiers[0].capacity_bytes == 2'147'483'648);  // 2 * 2^30
  CHECK(profile.tiers[0].is_device);
  CHECK(profile.links.empty());
  CHECK(profile.class_rules.empty());
  CHECK(profile.compute.efficiency_ppm == 1'000'000);
  CHECK(profile.compute.peak_flops_per_s.at(DType::kFloat32) == 1'000'000'000'000);
}

TEST_CASE("Description and sources are kept in document order", "[profile][yaml]") {
  const HardwareProfile profile = ParseProfileYaml(R"yaml(name: t
description: one line
sources:
  B-DS: second? no, first written
  A-DS: "folded
    over two lines"
tiers: [{name: hbm, capacity: 1GB, device: true}]
compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s}
)yaml",
                                                   "t.yaml");
  CHECK(profile.description == "one line");
  REQUIRE(profile.sources.size() == 2);
  CHECK(profile.sources[0].tag == "B-DS");
  CHECK(profile.sources[0].citation == "second? no, first written");
  CHECK(profile.sources[1].tag == "A-DS");
  CHECK(profile.sources[1].citation == "folded over two lines");  // YAML line folding
}

TEST_CASE("Anchors and aliases are resolved", "[profile][yaml]") {
  const HardwareProfile profile = ParseProfileYaml(R"yaml(name: t
tiers:
  - {name: hbm, capacity: &size 4GB, device: true}
  - {name: ddr, capacity: *size}
compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s}
)yaml",
                                                   "t.yaml");
  CHECK(profile.tiers[1].capacity_bytes == 4'000'000'000);
}

}  // namespace
}  // namespace hyperplan
