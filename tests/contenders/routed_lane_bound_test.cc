// The host-aware bound's fetch-after-route condition (contenders/routed_lane_bound.h): the
// knapsack solved by hand, and on the generator's tiny MoE that no plan beats it.
#include "contenders/routed_lane_bound.h"

#include "contender_support.h"
#include "contenders/host_lower_bound.h"

namespace hyperplan::contenders_test {
namespace {

using contenders::HostBoundInputs;
using contenders::SolveHostAwareBound;

constexpr int64_t kBytePerNs = 1'000'000'000;  // 1 byte/ns, in bytes per second

// One MoE layer on a chain: its routed experts (device 10 ns, host `host_ns`) free 1000 B on
// the host; its stacked operands are 800 B, each expert touched with chance 1/4. 1000 B forced
// into the device at 1 byte/ns; the sparse terms as AddSparseTerms makes them: Z = 3/4 x 800 =
// 600 B, so (400 B, r) and (1000 B, 4 r).
HostBoundInputs OneMoeLayer(int64_t host_ns) {
  HostBoundInputs inputs;
  inputs.parts = {{10, host_ns, 1000}};
  inputs.parts[0].routed_bytes = 800;
  inputs.parts[0].touch = 0.25;
  inputs.chain = true;
  inputs.routed_lane = true;
  inputs.into_device_bytes_per_s = kBytePerNs;
  inputs.whole_transfers = {{1000, kBytePerNs}};
  inputs.transfers = {{400, kBytePerNs}, {1000, 4 * kBytePerNs}};
  return inputs;
}

TEST_CASE("fetch after route: a dense crossing costs whole bytes, the host frees them") {
  // Host 110 ns: L(x) = 10 + 100 x, 0.1 ns per byte freed. Fetched after route the layer frees
  // 3/4 x 800 = 600 B of the link terms at t W = 200 B of lane (less the byte of rounding, 199
  // ns): 0.33 ns per byte, dearer than the host, so only the host is taken.
  // Without the condition: F >= max(400 - T, 1000 - 4 T); 10 + 0.1 (1000 - 4 T) = T gives
  // T* = 110 / 1.4 = 78.57 (there 400 - T = 321 < 686), so 79.
  HostBoundInputs inputs = OneMoeLayer(110);
  inputs.routed_lane = false;
  CHECK(SolveHostAwareBound(inputs).makespan_ns == 79);
  CHECK_FALSE(SolveHostAwareBound(inputs).routed_lane_binds);
  // With it: F >= 1000 - T at 0.1 ns a byte, 10 + 0.1 (1000 - T) = T, T* = 110 / 1.1 = 100.
  inputs.routed_lane = true;
  const auto bound = SolveHostAwareBound(inputs);
  CHECK(bound.makespan_ns == 100);
  CHECK(bound.routed_lane_binds);
}

TEST_CASE("fetch after route: the routed bytes cross on the chain, after the router") {
  // Host 1010 ns: 1 ns per byte freed. Without the condition: 10 + (400 - T) = T (there
  // 1000 - 4 T < 400 - T), T* = 205.
  HostBoundInputs inputs = OneMoeLayer(1010);
  inputs.routed_lane = false;
  CHECK(SolveHostAwareBound(inputs).makespan_ns == 205);
  // With it, the layer's hull: after route (600 B for 199 ns, 0.332 ns/B), then the host for
  // the rest (400 B for 1000 - 199 = 801 ns, 2.0025 ns/B). Need G = 1000 - T: after route
  // alone, 10 + 199/600 (1000 - T) = T gives T = 256.6 with G = 743 > 600, so the host share
  // too: 10 + 199 + 2.0025 (400 - T) = T, T* = 1010 / 3.0025 = 336.39, so 337. (Dense alone:
  // 1000 over the link; the host alone: 10 + (1000 - T) = T, 505.)
  inputs.routed_lane = true;
  const auto bound = SolveHostAwareBound(inputs);
  CHECK(bound.makespan_ns == 337);
  CHECK(bound.routed_lane_binds);
  // Nodes between the router and the MoE node may run beside the fetch: 5 ns of them come off
  // the lane, 5 + 199 + 2.0025 (400 - T) = T, T* = 1005 / 3.0025 = 334.72, so 335.
  inputs.parts[0].overlap_ns = 5;
  CHECK(SolveHostAwareBound(inputs).makespan_ns == 335);
}

TEST_CASE("fetch after route: off the chain the condition does not apply") {
  // Without a chain no span orders the router, the fetch and the MoE node: the host lane H
  // alone, 1010 x, with F >= 400 - T: 1010 (400 - T) / 1000 = T, T* = 404 / 2.01 = 200.99,
  // so 201 (1000 - 4 T < 400 - T there).
  HostBoundInputs inputs = OneMoeLayer(1010);
  inputs.chain = false;
  const auto bound = SolveHostAwareBound(inputs);
  CHECK(bound.makespan_ns == 201);
  CHECK_FALSE(bound.routed_lane_binds);
}

}  // namespace
}  // namespace hyperplan::contenders_test
