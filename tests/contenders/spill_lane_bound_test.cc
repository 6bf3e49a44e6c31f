// The spill past the compute tiers (contenders/spill_lane_bound.h): the knapsack by hand, the
// compute tiers and far links a profile gives, and a routed operand's bytes at their touch.
#include "contenders/spill_lane_bound.h"

#include <string>
#include <vector>

#include "contender_support.h"
#include "contenders/context.h"
#include "contenders/host_lower_bound.h"
#include "host_decoder.h"
#include "support/generated_graph.h"

namespace hyperplan::contenders_test {
namespace {

using contenders::ComputeSpillTerm;
using contenders::LeastSpillCrossing;

TEST_CASE("spill: the least crossing leaves out the bytes least likely read first") {
  // A dense value of 100 B (100 crossings if left out) and a routed operand of 400 B whose
  // experts are each touched with chance 1/4 (100 crossings for all of it).
  const std::vector<contenders::LaneOption> items = {{100, 100, 0}, {100, 400, 0}};
  // 500 B, 300 kept: 200 B of the routed operand left out, 200 / 4 = 50.
  CHECK(LeastSpillCrossing(items, 300) == Approx(50));
  // 50 kept: all 400 routed (100) and 50 dense (50), 150.
  CHECK(LeastSpillCrossing(items, 50) == Approx(150));
  // Nothing kept: every byte at its cost, 200. Everything kept: 0.
  CHECK(LeastSpillCrossing(items, 0) == Approx(200));
  CHECK(LeastSpillCrossing(items, 500) == 0);
}

// The host decoder (host_decoder.h: 3 layers of two 1024 B weights, 6144 B) on hbm 2048 B and
// ddr 2000 B, with an nvme tier behind ddr at 1 byte/ns in and 2 bytes/ns back (the way out
// carries nothing a node reads).
HardwareProfile WithNvme(bool host_unit) {
  HardwareProfile profile = HostUnitProfile(2048);
  if (!host_unit) profile.host_compute = {};
  profile.tiers[1].capacity_bytes = 2000;
  profile.tiers.push_back({"nvme", int64_t{1} << 40, false});
  profile.links.push_back({2, 1, 1'000'000'000, 0, 4});
  profile.links.push_back({1, 2, 2'000'000'000, 0, 1});
  return profile;
}

TEST_CASE("spill: what hbm and ddr cannot keep crosses from nvme, whichever unit reads it") {
  const HostDecoder decoder = MakeHostDecoder(3);
  const HardwareProfile profile = WithNvme(/*host_unit=*/true);
  const auto context = contenders::BuildContenderContext(decoder.graph, profile, decoder.times);
  const contenders::SpillTerm term = ComputeSpillTerm(context);
  // The weights exist before the run and are read in it (h0, an input, is not counted): 6144 B;
  // hbm and ddr keep 4048 B, so 2096 B cross nvme -> ddr (1 byte/ns; ddr -> hbm joins two
  // compute tiers and does not count): 2096 ns.
  CHECK(term.read_bytes == 6 * kWeightBytes);
  CHECK(term.compute_capacity_bytes == 4048);
  CHECK(term.far_bytes_per_s == 1'000'000'000);
  CHECK(term.crossing_bytes == 2096);
  CHECK(term.ns == 2096);
}

TEST_CASE("spill: the host-aware bound takes it as a floor") {
  // One part, 10 ns on the device and 20 on the host, beside 5 ns of no-part device time, no
  // chain and no transfer: the device lane D(x) = 15 - 10 x within T while the host's 20 x is:
  // T = 10 at x = 1/2 (at 9, x = 3/5 puts 12 ns on the host).
  contenders::HostBoundInputs inputs;
  inputs.parts = {{10, 20, 100}};
  inputs.fixed_device_ns = 5;
  CHECK(contenders::SolveHostAwareBound(inputs).makespan_ns == 10);
  // A spill of 7 ns stays below it; one of 50 ns is the bound.
  inputs.spill_ns = 7;
  CHECK(contenders::SolveHostAwareBound(inputs).makespan_ns == 10);
  CHECK_FALSE(contenders::SolveHostAwareBound(inputs).spill_binds);
  inputs.spill_ns = 50;
  inputs.spill_bytes = 50;
  const auto bound = contenders::SolveHostAwareBound(inputs);
  CHECK(bound.makespan_ns == 50);
  CHECK(bound.spill_binds);
  CHECK(bound.spill_bytes == 50);
}

TEST_CASE("spill: without a host unit ddr is far too") {
  const HostDecoder decoder = MakeHostDecoder(3);
  const HardwareProfile profile = WithNvme(/*host_unit=*/false);
  const auto context = contenders::BuildContenderContext(decoder.graph, profile, decoder.times);
  const contenders::SpillTerm term = ComputeSpillTerm(context);
  // hbm alone keeps 2048 B: 4096 B cross ddr -> hbm (1 byte/ns; nvme -> ddr joins two far
  // tiers).
  CHECK(term.compute_capacity_bytes == 2048);
  CHECK(term.far_bytes_per_s == 1'000'000'000);
  CHECK(term.crossing_bytes == 4096);
  CHECK(term.ns == 4096);
}

TEST_CASE("spill: a routed operand left out costs its touch per byte") {
  // tiny-moe's decode step: layers 1 and 2 are MoE, each with fc1 [8, 128, 64] and fc2
  // [8, 64, 64] float32 stacked (262144 + 131072 B), each expert touched by one token's top 2
  // of 8 with chance 1/4.
  const Graph graph =
      testing::GeneratedGraph({"--preset", "tiny-moe", "--form", "decode", "--moe-form", "ort"},
                              {{"batch", 1}, {"sequence", 1}, {"past_sequence", 4}});
  const LoopSpec loop{true, FindAliases(graph, {})};
  HardwareProfile profile = WithNvme(/*host_unit=*/true);
  const auto probe = contenders::BuildContenderContext(graph, profile, {}, loop);
  const int64_t read_bytes = ComputeSpillTerm(probe).read_bytes;
  // Keep all but 400000 B (less than the 786432 B of routed operands): they are left out at a
  // quarter of a crossing each, 100000 B, less one byte for each of the 4 routed operands'
  // rounding: 99996 B at 1 byte/ns (99995 where the touch chance, 1 - (1 - 1/4)^1 in double,
  // lands a hair below 1/4 and the floor takes the byte).
  profile.tiers[1].capacity_bytes = read_bytes - 400000 - profile.tiers[0].capacity_bytes;
  const auto context = contenders::BuildContenderContext(graph, profile, {}, loop);
  const contenders::SpillTerm term = ComputeSpillTerm(context);
  CHECK(term.read_bytes == read_bytes);
  CHECK(term.crossing_bytes >= 99995);
  CHECK(term.crossing_bytes <= 99996);
  CHECK(term.ns == term.crossing_bytes);
}

}  // namespace
}  // namespace hyperplan::contenders_test
