// The shipped profiles in configs/ load, and carry the figures their comments cite. Expected
// numbers are the YAML text converted by hand (GB = 10^9 bytes, TB/s = 10^12 bytes/s, ...).
#include <catch2/catch.hpp>
#include <string>

#include "hyperplan/adapters/profile_yaml.h"
#include "hyperplan/hardware.h"

namespace hyperplan {
namespace {

HardwareProfile LoadShipped(const std::string& file) {
  return LoadProfileFile(std::string(HYPERPLAN_SOURCE_DIR) + "/configs/" + file);
}

// The link from -> to by tier names; fails the test when it is missing.
const Link& LinkBetween(const HardwareProfile& profile, const std::string& from,
                        const std::string& to) {
  const Link* link = profile.FindLink(profile.FindTier(from), profile.FindTier(to));
  INFO(from << " -> " << to);
  REQUIRE(link != nullptr);
  return *link;
}

TEST_CASE("configs/h100-sxm.yaml", "[profile][configs]") {
  const HardwareProfile profile = LoadShipped("h100-sxm.yaml");
  CHECK(profile.name == "h100-sxm");
  CHECK(profile.source == std::string(HYPERPLAN_SOURCE_DIR) + "/configs/h100-sxm.yaml");
  REQUIRE(profile.tiers.size() == 3);
  CHECK(profile.tiers[0].name == "hbm");
  CHECK(profile.tiers[0].capacity_bytes == 80'000'000'000);  // 80GB = 80 * 10^9
  CHECK(profile.tiers[0].is_device);
  CHECK(profile.tiers[1].name == "ddr");
  CHECK(profile.tiers[1].capacity_bytes == 256'000'000'000);  // 256GB
  CHECK_FALSE(profile.tiers[1].is_device);
  CHECK(profile.tiers[2].name == "nvme");
  CHECK(profile.tiers[2].capacity_bytes == 3'840'000'000'000);  // 3.84TB = 3.84 * 10^12
  CHECK(profile.device_tier == 0);
  CHECK(profile.tiers[0].alignment_bytes == 256);   // stated: 256B
  CHECK(profile.tiers[1].alignment_bytes == 256);   // the default
  CHECK(profile.tiers[2].alignment_bytes == 4096);  // stated: 4KiB, for O_DIRECT

  // Two entries with reverse_bandwidth: four directed links.
  CHECK(profile.links.size() == 4);
  const Link& h2d = LinkBetween(profile, "ddr", "hbm");
  CHECK(h2d.bandwidth_bytes_per_s == 35'000'000'000);  // 35GB/s measured H2D
  CHECK(h2d.latency_ns == 5'000);                      // 5us
  CHECK(h2d.channels == 1);
  const Link& d2h = LinkBetween(profile, "hbm", "ddr");
  CHECK(d2h.bandwidth_bytes_per_s == 53'000'000'000);  // 53GB/s measured D2H
  CHECK(d2h.latency_ns == 5'000);                      // reverse shares the latency
  const Link& nvme_read = LinkBetween(profile, "nvme", "ddr");
  CHECK(nvme_read.bandwidth_bytes_per_s == 7'000'000'000);  // 7GB/s
  CHECK(nvme_read.latency_ns == 100'000);                   // 100us = 100 * 10^3 ns
  CHECK(nvme_read.channels == 4);
  CHECK(LinkBetween(profile, "ddr", "nvme").bandwidth_bytes_per_s == 5'000'000'000);
  CHECK(LinkBetween(profile, "ddr", "nvme").channels == 4);
  // NVMe sits behind DDR only.
  CHECK(profile.FindLink(profile.FindTier("nvme"), profile.FindTier("hbm")) == nullptr);
  CHECK(profile.FindLink(profile.FindTier("hbm"), profile.FindTier("nvme")) == nullptr);

  CHECK(profile.PeakFlopsPerS(DType::kBFloat16) == 989'000'000'000'000);  // 989 * 10^12
  CHECK(profile.PeakFlopsPerS(DType::kFloat16) == 989'000'000'000'000);
  CHECK(profile.PeakFlopsPerS(DType::kFloat8E4M3FN) == 1'979'000'000'000'000);
  CHECK(profile.PeakFlopsPerS(DType::kFloat32) == 67'000'000'000'000);
  // int8 has no entry: falls back to float's
  CHECK(profile.PeakFlopsPerS(DType::kInt8) == 67'000'000'000'000);
  CHECK(profile.compute.memory_bandwidth_bytes_per_s == 3'350'000'000'000);  // 3.35 * 10^12
  CHECK(profile.compute.efficiency_ppm == 700'000);                          // 0.7 * 10^6
  CHECK(profile.compute.kernel_launch_overhead_ns == 5'000);
  CHECK(profile.compute.memory_efficiency_ppm == 866'000);   // 0.866: 2.9 of 3.35 TB/s
  CHECK(profile.compute.launch_mode == LaunchMode::kGraph);  // decode servers capture graphs
  CHECK(profile.compute.LaunchOverheadNs() == 500);          // 3.4 - 2.9 us per kernel
  // No placement section: ddr is the first non-device tier linked both ways to hbm.
  CHECK(profile.weight_home_tier == profile.FindTier("ddr"));
  CHECK(profile.class_rules.empty());
}

TEST_CASE("configs/gh200.yaml", "[profile][configs]") {
  const HardwareProfile profile = LoadShipped("gh200.yaml");
  CHECK(profile.name == "gh200");
  REQUIRE(profile.tiers.size() == 3);
  CHECK(profile.tiers[profile.device_tier].name == "hbm");
  CHECK(profile.tiers[0].capacity_bytes == 96'000'000'000);                           // 96GB
  CHECK(profile.tiers[profile.FindTier("lpddr")].capacity_bytes == 480'000'000'000);  // 480GB
  CHECK(profile.tiers[profile.FindTier("nvme")].capacity_bytes == 3'840'000'000'000);
  CHECK(profile.links.size() == 4);
  // NVLink-C2C: 450GB/s = 450 * 10^9 in each direction
  CHECK(LinkBetween(profile, "lpddr", "hbm").bandwidth_bytes_per_s == 450'000'000'000);
  CHECK(LinkBetween(profile, "hbm", "lpddr").bandwidth_bytes_per_s == 450'000'000'000);
  CHECK(LinkBetween(profile, "hbm", "lpddr").latency_ns == 2'000);  // 2us
  CHECK(LinkBetween(profile, "nvme", "lpddr").bandwidth_bytes_per_s == 14'000'000'000);
  CHECK(LinkBetween(profile, "lpddr", "nvme").bandwidth_bytes_per_s == 10'000'000'000);
  CHECK(profile.FindLink(profile.FindTier("nvme"), profile.device_tier) == nullptr);
  CHECK(profile.compute.memory_bandwidth_bytes_per_s == 4'000'000'000'000);  // 4TB/s
  CHECK(profile.PeakFlopsPerS(DType::kBFloat16) == 989'000'000'000'000);
  CHECK(profile.compute.efficiency_ppm == 700'000);
  CHECK(profile.weight_home_tier == profile.FindTier("lpddr"));
}

TEST_CASE("configs/a100-pcie4.yaml", "[profile][configs]") {
  const HardwareProfile profile = LoadShipped("a100-pcie4.yaml");
  CHECK(profile.name == "a100-pcie4");
  REQUIRE(profile.tiers.size() == 3);
  CHECK(profile.tiers[profile.device_tier].capacity_bytes == 80'000'000'000);  // 80GB
  CHECK(profile.tiers[profile.FindTier("ddr")].capacity_bytes == 512'000'000'000);
  // PCIe 4 x16 measured ~25GB/s, taken as symmetric
  CHECK(LinkBetween(profile, "ddr", "hbm").bandwidth_bytes_per_s == 25'000'000'000);
  CHECK(LinkBetween(profile, "hbm", "ddr").bandwidth_bytes_per_s == 25'000'000'000);
  CHECK(LinkBetween(profile, "nvme", "ddr").bandwidth_bytes_per_s == 7'000'000'000);
  CHECK(profile.PeakFlopsPerS(DType::kBFloat16) == 312'000'000'000'000);  // 312 * 10^12
  CHECK(profile.PeakFlopsPerS(DType::kFloat32) == 19'500'000'000'000);    // 19.5 * 10^12
  // 1935GB/s = 1.935 * 10^12
  CHECK(profile.compute.memory_bandwidth_bytes_per_s == 1'935'000'000'000);
  CHECK(profile.weight_home_tier == profile.FindTier("ddr"));
}

TEST_CASE("configs/a100-sxm.yaml", "[profile][configs]") {
  const HardwareProfile profile = LoadShipped("a100-sxm.yaml");
  CHECK(profile.name == "a100-sxm");
  REQUIRE(profile.tiers.size() == 3);
  CHECK(profile.tiers[profile.device_tier].capacity_bytes == 80'000'000'000);          // 80GB
  CHECK(profile.tiers[profile.FindTier("ddr")].capacity_bytes == 256'000'000'000);     // 2 TB / 8
  CHECK(profile.tiers[profile.FindTier("nvme")].capacity_bytes == 3'840'000'000'000);  // 3.84TB
  // PCIe 4 x16 measured ~25GB/s, taken as symmetric
  CHECK(LinkBetween(profile, "ddr", "hbm").bandwidth_bytes_per_s == 25'000'000'000);
  CHECK(LinkBetween(profile, "hbm", "ddr").bandwidth_bytes_per_s == 25'000'000'000);
  CHECK(LinkBetween(profile, "nvme", "ddr").bandwidth_bytes_per_s == 7'000'000'000);
  CHECK(profile.PeakFlopsPerS(DType::kBFloat16) == 312'000'000'000'000);  // 312 * 10^12
  CHECK(profile.PeakFlopsPerS(DType::kFloat32) == 19'500'000'000'000);    // 19.5 * 10^12
  // 2039GB/s = 2.039 * 10^12: the SXM module's HBM2e, faster than the PCIe card's 1935GB/s
  CHECK(profile.compute.memory_bandwidth_bytes_per_s == 2'039'000'000'000);
  CHECK(profile.compute.efficiency_ppm == 700'000);  // 0.7
  // A100-BW: a read kernel sustains 1.80 of 2.039 TB/s = 0.8828 -> 0.883
  CHECK(profile.compute.memory_efficiency_ppm == 883'000);
  // CUDA-GRAPHS: 3.4 us a replayed kernel less 2.9 us of kernel = 0.5 us
  CHECK(profile.compute.launch_mode == LaunchMode::kGraph);
  CHECK(profile.compute.graph_kernel_overhead_ns == 500);
  CHECK(profile.weight_home_tier == profile.FindTier("ddr"));
}

TEST_CASE("configs/supernode.yaml", "[profile][configs]") {
  const HardwareProfile profile = LoadShipped("supernode.yaml");
  CHECK(profile.name == "ascend-910c-supernode");
  REQUIRE(profile.tiers.size() == 2);
  CHECK(profile.tiers[0].name == "hbm");
  CHECK(profile.tiers[0].capacity_bytes == 128'000'000'000);  // 128GB
  CHECK(profile.device_tier == 0);
  CHECK(profile.tiers[1].name == "pool");
  CHECK(profile.tiers[1].capacity_bytes == 512'000'000'000);  // 512GB
  REQUIRE(profile.links.size() == 2);
  for (const Link& link : profile.links) {
    CHECK(link.bandwidth_bytes_per_s == 392'000'000'000);  // 392GB/s each way
    CHECK(link.latency_ns == 1'000);                       // 1us
    CHECK(link.channels == 2);
  }
  CHECK(profile.PeakFlopsPerS(DType::kBFloat16) == 752'000'000'000'000);     // 752 * 10^12
  CHECK(profile.compute.memory_bandwidth_bytes_per_s == 3'200'000'000'000);  // 3.2 * 10^12
  CHECK(profile.compute.efficiency_ppm == 700'000);
  CHECK(profile.compute.kernel_launch_overhead_ns == 5'000);
  CHECK(profile.compute.launch_mode == LaunchMode::kEager);   // no graph mode in the sources
  CHECK(profile.compute.memory_efficiency_ppm == 1'000'000);  // no sustained figure: datasheet
  CHECK(profile.weight_home_tier == 1);                       // placement.weight_home: pool
  CHECK(profile.class_rules.empty());  // the classes example is commented out
}

TEST_CASE("configs/rtx-4090.yaml", "[profile][configs]") {
  const HardwareProfile profile = LoadShipped("rtx-4090.yaml");
  CHECK(profile.name == "rtx-4090");
  REQUIRE(profile.tiers.size() == 3);
  CHECK(profile.tiers[profile.device_tier].name == "gddr");
  CHECK(profile.tiers[profile.device_tier].capacity_bytes == 24'000'000'000);  // 24GB
  CHECK(profile.tiers[profile.FindTier("ddr")].capacity_bytes == 64'000'000'000);
  CHECK(profile.tiers[profile.FindTier("nvme")].capacity_bytes == 2'000'000'000'000);  // 2TB
  // PCIe 4.0 x16, ~25GB/s measured, taken as symmetric
  CHECK(LinkBetween(profile, "ddr", "gddr").bandwidth_bytes_per_s == 25'000'000'000);
  CHECK(LinkBetween(profile, "gddr", "ddr").bandwidth_bytes_per_s == 25'000'000'000);
  CHECK(profile.FindLink(profile.FindTier("nvme"), profile.device_tier) == nullptr);
  // 165.2TFLOPS = 165.2 * 10^12 (FP32 accumulate, dense)
  CHECK(profile.PeakFlopsPerS(DType::kBFloat16) == 165'200'000'000'000);
  CHECK(profile.PeakFlopsPerS(DType::kFloat16) == 165'200'000'000'000);
  CHECK(profile.PeakFlopsPerS(DType::kFloat8E4M3FN) == 330'300'000'000'000);
  CHECK(profile.PeakFlopsPerS(DType::kFloat32) == 82'600'000'000'000);
  CHECK(profile.compute.memory_bandwidth_bytes_per_s == 1'008'000'000'000);  // 1008GB/s
  CHECK(profile.weight_home_tier == profile.FindTier("ddr"));
  // ADA-WP, PCIe4, NVMe, SDPA, CUDA-GRAPHS, and the host's RYZEN-7950X and ZEN-FMA
  CHECK(profile.sources.size() == 7);
}

TEST_CASE("configs/l40s.yaml", "[profile][configs]") {
  const HardwareProfile profile = LoadShipped("l40s.yaml");
  CHECK(profile.name == "l40s");
  CHECK(profile.tiers[profile.device_tier].capacity_bytes == 48'000'000'000);  // 48GB
  CHECK(LinkBetween(profile, "ddr", "gddr").bandwidth_bytes_per_s == 25'000'000'000);
  // 362.05TFLOPS = 362.05 * 10^12
  CHECK(profile.PeakFlopsPerS(DType::kBFloat16) == 362'050'000'000'000);
  CHECK(profile.PeakFlopsPerS(DType::kFloat8E4M3FN) == 733'000'000'000'000);
  CHECK(profile.PeakFlopsPerS(DType::kFloat32) == 91'600'000'000'000);
  CHECK(profile.compute.memory_bandwidth_bytes_per_s == 864'000'000'000);  // 864GB/s
  CHECK(profile.weight_home_tier == profile.FindTier("ddr"));
}

TEST_CASE("configs/h200-sxm.yaml", "[profile][configs]") {
  const HardwareProfile profile = LoadShipped("h200-sxm.yaml");
  CHECK(profile.name == "h200-sxm");
  CHECK(profile.tiers[profile.device_tier].name == "hbm");
  CHECK(profile.tiers[profile.device_tier].capacity_bytes == 141'000'000'000);  // 141GB
  // The H100 SXM's PCIe 5.0 x16 host link: 35GB/s H2D, 53GB/s D2H measured
  CHECK(LinkBetween(profile, "ddr", "hbm").bandwidth_bytes_per_s == 35'000'000'000);
  CHECK(LinkBetween(profile, "hbm", "ddr").bandwidth_bytes_per_s == 53'000'000'000);
  CHECK(profile.PeakFlopsPerS(DType::kBFloat16) == 989'000'000'000'000);
  CHECK(profile.PeakFlopsPerS(DType::kFloat8E4M3FN) == 1'979'000'000'000'000);
  CHECK(profile.compute.memory_bandwidth_bytes_per_s == 4'800'000'000'000);  // 4.8TB/s
  CHECK(profile.weight_home_tier == profile.FindTier("ddr"));
}

TEST_CASE("configs/mi300x.yaml", "[profile][configs]") {
  const HardwareProfile profile = LoadShipped("mi300x.yaml");
  CHECK(profile.name == "mi300x");
  CHECK(profile.tiers[profile.device_tier].capacity_bytes == 192'000'000'000);  // 192GB
  CHECK(LinkBetween(profile, "ddr", "hbm").bandwidth_bytes_per_s == 50'000'000'000);
  CHECK(LinkBetween(profile, "hbm", "ddr").bandwidth_bytes_per_s == 50'000'000'000);
  // 1307.4TFLOPS = 1307.4 * 10^12
  CHECK(profile.PeakFlopsPerS(DType::kBFloat16) == 1'307'400'000'000'000);
  CHECK(profile.PeakFlopsPerS(DType::kFloat8E4M3FN) == 2'614'900'000'000'000);
  CHECK(profile.PeakFlopsPerS(DType::kFloat32) == 163'400'000'000'000);
  CHECK(profile.compute.memory_bandwidth_bytes_per_s == 5'300'000'000'000);  // 5.3TB/s
  CHECK(profile.weight_home_tier == profile.FindTier("ddr"));
}

TEST_CASE("Every shipped profile has a description and cites its sources", "[profile][configs]") {
  for (const std::string& name : ShippedProfileNames()) {
    INFO(name);
    const HardwareProfile profile = LoadShipped(name + ".yaml");
    CHECK_FALSE(profile.description.empty());
    CHECK_FALSE(profile.sources.empty());
    CHECK(profile.compute.fuse_attention);  // every shipped runtime fuses attention
    for (const ProfileSource& source : profile.sources) {
      CHECK_FALSE(source.tag.empty());
      CHECK_FALSE(source.citation.empty());
    }
  }
}

}  // namespace
}  // namespace hyperplan
