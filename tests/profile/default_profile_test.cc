// DefaultProfile(): the compiled-in copy of configs/supernode.yaml.
#include <catch2/catch.hpp>
#include <string>

#include "hyperplan/adapters/profile_yaml.h"

namespace hyperplan {
namespace {

TEST_CASE("DefaultProfile is configs/supernode.yaml, compiled in", "[profile][default]") {
  const HardwareProfile embedded = DefaultProfile();
  CHECK(embedded.source == "embedded default (configs/supernode.yaml)");
  CHECK(embedded.name == "ascend-910c-supernode");

  // The build embeds the file as it was at configure time; equal fields mean they agree.
  const HardwareProfile file =
      LoadProfileFile(std::string(HYPERPLAN_SOURCE_DIR) + "/configs/supernode.yaml");
  REQUIRE(embedded.tiers.size() == file.tiers.size());
  for (size_t i = 0; i < file.tiers.size(); ++i) {
    CHECK(embedded.tiers[i].name == file.tiers[i].name);
    CHECK(embedded.tiers[i].capacity_bytes == file.tiers[i].capacity_bytes);
    CHECK(embedded.tiers[i].is_device == file.tiers[i].is_device);
  }
  REQUIRE(embedded.links.size() == file.links.size());
  for (size_t i = 0; i < file.links.size(); ++i) {
    CHECK(embedded.links[i].from == file.links[i].from);
    CHECK(embedded.links[i].to == file.links[i].to);
    CHECK(embedded.links[i].bandwidth_bytes_per_s == file.links[i].bandwidth_bytes_per_s);
    CHECK(embedded.links[i].latency_ns == file.links[i].latency_ns);
    CHECK(embedded.links[i].channels == file.links[i].channels);
  }
  CHECK(embedded.compute.peak_flops_per_s == file.compute.peak_flops_per_s);
  CHECK(embedded.compute.memory_bandwidth_bytes_per_s == file.compute.memory_bandwidth_bytes_per_s);
  CHECK(embedded.compute.efficiency_ppm == file.compute.efficiency_ppm);
  CHECK(embedded.compute.memory_efficiency_ppm == file.compute.memory_efficiency_ppm);
  CHECK(embedded.compute.launch_mode == file.compute.launch_mode);
  CHECK(embedded.compute.LaunchOverheadNs() == file.compute.LaunchOverheadNs());
  CHECK(embedded.device_tier == file.device_tier);
  CHECK(embedded.weight_home_tier == file.weight_home_tier);

  // Spot figures, so that a broken embedding cannot pass by matching a broken file:
  // 128GB of HBM, pool as the weight home, 752TFLOPS BF16.
  CHECK(embedded.tiers[embedded.device_tier].capacity_bytes == 128'000'000'000);
  CHECK(embedded.weight_home_tier == embedded.FindTier("pool"));
  CHECK(embedded.PeakFlopsPerS(DType::kBFloat16) == 752'000'000'000'000);
}

TEST_CASE("DefaultProfile returns an independent copy each call", "[profile][default]") {
  HardwareProfile first = DefaultProfile();
  first.tiers.clear();
  first.name = "changed";
  const HardwareProfile second = DefaultProfile();
  CHECK(second.name == "ascend-910c-supernode");
  CHECK(second.tiers.size() == 2);
}

}  // namespace
}  // namespace hyperplan
