// calibrate's arithmetic without a GPU (calibrate/calibration.h): the latency and bandwidth fit
// on synthetic timings with a known answer, the choice of channels, and the measured profile,
// which must load back (ParseProfileYaml) with exactly the numbers put in.
#include "calibrate/calibration.h"

#include <catch2/catch.hpp>

#include "hyperplan/adapters/profile_yaml.h"
#include "hyperplan/error.h"

using namespace hyperplan;
using namespace hyperplan::calibrate;

namespace {

// time = latency + bytes / bandwidth, exactly, for sizes that are multiples of 1000 B.
std::vector<TransferSample> OnLine(int64_t latency_ns, int64_t ns_per_1000_bytes) {
  std::vector<TransferSample> samples;
  for (int64_t bytes : {4'000, 64'000, 1'024'000, 16'384'000, 268'436'000}) {
    samples.push_back({bytes, latency_ns + bytes / 1000 * ns_per_1000_bytes});
  }
  return samples;
}

Calibration Synthetic() {
  Calibration calibration;
  calibration.device_name = "NVIDIA H100 80GB HBM3";
  calibration.host_name = "gpu-host";
  calibration.date_utc = "2026-11-28T10:00:00Z";
  calibration.device_memory_bytes = 85'031'714'816;  // above the base's 80 GB: not used
  // h2d: 2000 ns + 50 ns per 1000 B = 20 GB/s; two streams add 2.5%: one channel.
  calibration.host_to_device.samples = OnLine(2000, 50);
  calibration.host_to_device.streams = {{1, 20'000'000'000}, {2, 20'500'000'000}};
  // d2h: 3000 ns + 25 ns per 1000 B = 40 GB/s; two streams reach 50 GB/s, four 50.5 GB/s.
  calibration.device_to_host.samples = OnLine(3000, 25);
  calibration.device_to_host.streams = {
      {1, 40'000'000'000}, {2, 50'000'000'000}, {4, 50'500'000'000}};
  calibration.device_to_host.with_kernel_bandwidth_bytes_per_s = 39'000'000'000;
  calibration.hbm_bandwidth_bytes_per_s = 3'000'000'000'000;
  calibration.bf16_flops_per_s = 700'000'000'000'000;
  calibration.gemm_note = "fp8 refused";
  return calibration;
}

}  // namespace

TEST_CASE("calibrate fit: samples on a line give back its latency and bandwidth exactly") {
  // 50 ns per 1000 B is 1000 B / 50 ns = 20 B/ns = 20 GB/s.
  const LinkFit fit = FitLatencyBandwidth(OnLine(2000, 50));
  CHECK(fit.latency_ns == 2000);
  CHECK(fit.bandwidth_bytes_per_s == 20'000'000'000);
  // Two points: (1000 B, 3000 ns) and (3000 B, 7000 ns): slope 4000 / 2000 = 2 ns/B, so
  // 0.5 GB/s; intercept 3000 - 2 x 1000 = 1000 ns.
  const LinkFit two = FitLatencyBandwidth({{1000, 3000}, {3000, 7000}});
  CHECK(two.latency_ns == 1000);
  CHECK(two.bandwidth_bytes_per_s == 500'000'000);
}

TEST_CASE("calibrate fit: small transfers keep their weight against large ones") {
  // True line 5000 ns + 1 ns/B. The largest sample runs 1% slow (1% of 10^8 ns = 10^6 ns).
  // Weighted by 1/time^2, each sample counts by its relative error, so the 1% miss on the
  // largest moves the latency by a few ns, where an unweighted fit would move it by ~10^5 ns.
  const std::vector<TransferSample> samples = {
      {1'000, 6'000}, {10'000, 15'000}, {100'000, 105'000}, {100'000'000, 101'005'000}};
  const LinkFit fit = FitLatencyBandwidth(samples);
  CHECK(fit.latency_ns > 4900);
  CHECK(fit.latency_ns < 5100);
}

TEST_CASE("calibrate fit: one size, or times that do not grow, cannot be fitted") {
  CHECK_THROWS_AS(FitLatencyBandwidth({{4096, 5000}, {4096, 5100}}), Error);
  CHECK_THROWS_AS(FitLatencyBandwidth({{4096, 9000}, {8192, 5000}}), Error);
  CHECK_THROWS_AS(FitLatencyBandwidth({{4096, 0}, {8192, 5000}}), Error);
}

TEST_CASE("calibrate channels: the fewest streams within 5% of the best") {
  // Best 50.5 GB/s; 95% of it is 47.975 GB/s: 2 streams (50) qualify, 1 (40) does not.
  CHECK(ChooseChannels({{1, 40'000'000'000}, {2, 50'000'000'000}, {4, 50'500'000'000}}).streams ==
        2);
  // 20.5 x 0.95 = 19.475 GB/s: one stream (20) is enough.
  CHECK(ChooseChannels({{1, 20'000'000'000}, {2, 20'500'000'000}}).streams == 1);
}

TEST_CASE("calibrate profile: the measured figures load back exactly, the rest from the base") {
  const HardwareProfile base = ShippedProfile("h100-sxm");
  const std::string yaml = MeasuredProfileYaml(base, Synthetic(), "h100-measured");
  CHECK(yaml == MeasuredProfileYaml(base, Synthetic(), "h100-measured"));  // deterministic
  const HardwareProfile measured = ParseProfileYaml(yaml, "measured.yaml");
  CHECK(measured.name == "h100-measured");
  CHECK_THAT(measured.description, Catch::Contains("measured by hyperplan calibrate on "
                                                   "2026-11-28T10:00:00Z"));
  REQUIRE_FALSE(measured.sources.empty());
  CHECK(measured.sources[0].tag == "MEASURED");
  CHECK_THAT(measured.sources[0].citation, Catch::Contains("NVIDIA H100 80GB HBM3"));
  CHECK_THAT(yaml, Catch::Contains("# [MEASURED]"));
  const TierId hbm = measured.FindTier("hbm");
  const TierId ddr = measured.FindTier("ddr");
  const TierId nvme = measured.FindTier("nvme");
  CHECK(measured.tiers[hbm].capacity_bytes == 80'000'000'000);  // the base's, the smaller
  CHECK(measured.tiers[nvme].alignment_bytes == 4096);
  // ddr -> hbm: the one-stream fit, one channel.
  const Link* h2d = measured.FindLink(ddr, hbm);
  REQUIRE(h2d != nullptr);
  CHECK(h2d->bandwidth_bytes_per_s == 20'000'000'000);
  CHECK(h2d->latency_ns == 2000);
  CHECK(h2d->channels == 1);
  // hbm -> ddr: two streams' aggregate, two channels, the fit's latency.
  const Link* d2h = measured.FindLink(hbm, ddr);
  REQUIRE(d2h != nullptr);
  CHECK(d2h->bandwidth_bytes_per_s == 50'000'000'000);
  CHECK(d2h->latency_ns == 3000);
  CHECK(d2h->channels == 2);
  // NVMe behind ddr: the base's figures (7 GB/s, 100 us, 4 channels).
  const Link* nvme_read = measured.FindLink(nvme, ddr);
  REQUIRE(nvme_read != nullptr);
  CHECK(nvme_read->bandwidth_bytes_per_s == 7'000'000'000);
  CHECK(nvme_read->latency_ns == 100'000);
  CHECK(nvme_read->channels == 4);
  CHECK(measured.compute.memory_bandwidth_bytes_per_s == 3'000'000'000'000);
  CHECK(measured.compute.efficiency_ppm == 700'000);
  // bf16: 700 TFLOP/s sustained / efficiency 0.7 = 1000 TFLOP/s peak; fp8 not measured, the
  // base's 1979 TFLOP/s.
  CHECK(measured.PeakFlopsPerS(DType::kBFloat16) == 1'000'000'000'000'000);
  CHECK(measured.PeakFlopsPerS(DType::kFloat8E4M3FN) == 1'979'000'000'000'000);
  CHECK(measured.PeakFlopsPerS(DType::kFloat32) == 67'000'000'000'000);
  CHECK(measured.compute.kernel_launch_overhead_ns == 5000);
  CHECK(measured.weight_home_tier == ddr);
}

TEST_CASE("calibrate profile: a base without a host link is refused") {
  HardwareProfile lonely = ShippedProfile("h100-sxm");
  lonely.links.clear();
  CHECK_THROWS_AS(HostTier(lonely), Error);
}

TEST_CASE("calibrate report: every figure printed with its unit") {
  const std::string text = FormatCalibration(Synthetic());
  CHECK_THAT(text, Catch::Contains("h2d fit: latency 2000 ns, bandwidth 20"));
  CHECK_THAT(text, Catch::Contains("d2h 2 streams: 50"));
  CHECK_THAT(text, Catch::Contains("gemm fp8: not measured (fp8 refused)"));
}
