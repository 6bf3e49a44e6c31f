// Value homes (hyperplan/homes.h): the preferred tiers and the spill, spread over the
// iteration, to the next tier when the preferred one is full, worked by hand; then a plan on
// a full home tier.
#include "hyperplan/homes.h"

#include "planner_support.h"
#include "support/routed_moe.h"

namespace hyperplan::planner_test {
namespace {

constexpr TierId kDdr = 1;
constexpr TierId kNvme = 2;

// A chain of `layers` layers (six unless said): n_i(a_{i-1}, w_i) -> a_i, weights 100 B,
// activations 10 B (a_{-1} is the input x) unless said, 100 ns a node. Every node's working
// set is 10 + 100 + 10 = 120 B, and w_i is first used at step i.
struct Chain {
  Graph graph;
  std::vector<ValueId> w;
};

Chain MakeChain(int layers = 6, int64_t activation_bytes = 10) {
  Chain c;
  ValueId previous = Input(c.graph, "x", activation_bytes);
  for (int i = 0; i < layers; ++i) {
    c.w.push_back(Weight(c.graph, Named("layers.", i, ".w"), 100));
    previous =
        Work(c.graph, Named("n", i), {previous, c.w.back()}, Named("a", i), activation_bytes, 100);
  }
  MarkOutput(c.graph, previous);
  return c;
}

// hbm (`device_bytes`) <-> ddr (`ddr_bytes`) <-> nvme (`nvme_bytes`) at 1 byte/ns a hop;
// weights home in ddr.
HardwareProfile TieredProfile(int64_t device_bytes, int64_t ddr_bytes, int64_t nvme_bytes) {
  HardwareProfile profile = NvmeProfile();
  profile.tiers[0].capacity_bytes = device_bytes;
  profile.tiers[kDdr].capacity_bytes = ddr_bytes;
  profile.tiers[kNvme].capacity_bytes = nvme_bytes;
  profile.weight_home_tier = kDdr;
  return profile;
}

std::vector<TierId> WeightHomes(const Chain& c, const ValueHomes& homes) {
  std::vector<TierId> tiers;
  for (ValueId w : c.w) tiers.push_back(homes.home_tier[w]);
  return tiers;
}

ValueHomes HomesOf(const Chain& c, const HardwareProfile& profile) {
  return DecideHomes(c.graph, profile, FindDeviceRoutes(profile));
}

TEST_CASE("homes: everything in its preferred tier while it has room") {
  Chain c = MakeChain();
  const ValueId kv = Input(c.graph, "past_key_values.0.key", 50);
  c.graph.values[kv].value_class = ValueClass::kKvCache;
  const HardwareProfile profile = TieredProfile(220, int64_t{1} << 20, int64_t{1} << 30);
  const ValueHomes homes = HomesOf(c, profile);
  CHECK(WeightHomes(c, homes) == std::vector<TierId>(6, kDdr));  // the weight home
  // The KV cache: the cheapest round trip, ddr (2 ns a byte) before nvme (4).
  CHECK(homes.home_tier[kv] == kDdr);
  // x is an input of no homed class, a0 produced: both stored, in ddr.
  const ValueId x = c.graph.nodes[0].inputs[0];
  const ValueId a0 = c.graph.nodes[0].outputs[0];
  CHECK_FALSE(homes.Homed(x));
  CHECK(homes.store_tier[x] == kDdr);
  CHECK(homes.store_tier[a0] == kDdr);
  CHECK(homes.homed_bytes_per_tier[kDdr] == 650);  // 6 x 100 + 50
  CHECK(homes.SpilledBytes() == 0);
}

TEST_CASE("homes: a full tier spills home copies spread over the iteration") {
  const Chain c = MakeChain();
  // ddr 320 B keeps 320 / 16 = 20 B for staging: 300 B of homes fit, 600 B want in, so half
  // of the bytes walked must have moved. Walking w0..w5 (100 B each): w0 (walked 100, share
  // 50 > moved 0) moves; w1 (200: 100, moved 100) stays; w2 (300: 150 > 100) moves; w3 stays;
  // w4 (500: 250 > 200) moves; w5 (600: 300) stays. To nvme, the only other tier.
  const HardwareProfile profile = TieredProfile(220, 320, int64_t{1} << 30);
  const ValueHomes homes = HomesOf(c, profile);
  CHECK(WeightHomes(c, homes) == std::vector<TierId>{kNvme, kDdr, kNvme, kDdr, kNvme, kDdr});
  CHECK(homes.homed_bytes_per_tier[kDdr] == 300);
  CHECK(homes.homed_bytes_per_tier[kNvme] == 300);
  CHECK(homes.spilled_in_bytes_per_tier[kNvme] == 300);
  CHECK(homes.SpilledBytes() == 300);
  // Stored values keep the cheapest round trip: spill moves home copies only.
  CHECK(homes.store_tier[c.graph.nodes[0].outputs[0]] == kDdr);
}

TEST_CASE("homes: a quarter over moves every fourth weight") {
  const Chain c = MakeChain(8);
  // 800 B of weights; ddr 640 B keeps 40: 600 B fit, 200 over, a quarter of the bytes walked.
  // w0 (walked 100, share 25 > 0) moves; w1..w3 (shares 50, 75, 100 <= moved 100) stay; w4
  // (500: 125 > 100) moves; w5..w7 (150, 175, 200 <= 200) stay.
  const ValueHomes homes = HomesOf(c, TieredProfile(220, 640, int64_t{1} << 30));
  CHECK(WeightHomes(c, homes) ==
        std::vector<TierId>{kNvme, kDdr, kDdr, kDdr, kNvme, kDdr, kDdr, kDdr});
  CHECK(homes.homed_bytes_per_tier[kDdr] == 600);
}

TEST_CASE("homes: a value the next tier cannot hold stays; the tier stays over") {
  const Chain c = MakeChain();
  // nvme 240 B keeps nothing free (no route stages in it, nothing is stored there): room for
  // 240. The spread moves w0 and w2 (200 B, then 40 B left there); w4 is due (walked 500:
  // share 250 > moved 200) but does not fit, nor does any other weight in the earliest-first
  // pass after it. ddr keeps 400 B, 100 over its
  // room, which the planner will report as the tier being full.
  const HardwareProfile profile = TieredProfile(220, 320, 240);
  const ValueHomes homes = HomesOf(c, profile);
  CHECK(WeightHomes(c, homes) == std::vector<TierId>{kNvme, kDdr, kNvme, kDdr, kDdr, kDdr});
  CHECK(homes.homed_bytes_per_tier[kDdr] == 400);
  CHECK(homes.SpilledBytes() == 200);
  // With no room at all (32 B), nothing moves.
  CHECK(HomesOf(c, TieredProfile(220, 320, 32)).SpilledBytes() == 0);
}

TEST_CASE("homes: what the spread leaves over moves earliest-used first") {
  // Weights of 100, 100, 100, 100, 100 and 300 B: 800 B; ddr 480 B keeps 30: 450 fit, 350 over
  // (350/800 of the bytes walked). w0 (walked 100: share 43 > 0) moves; w1 (200: 87 < 100)
  // stays; w2 (300: 131 > 100) moves; w3 (400: 175 < 200) stays; w4 (500: 218 > 200) moves;
  // w5 (800: 350 > 300) moves too: 600 B out, 200 left in ddr.
  Chain uneven = MakeChain();
  uneven.graph.values[uneven.w[5]].bytes = 300;
  const ValueHomes spread = HomesOf(uneven, TieredProfile(220, 480, int64_t{1} << 30));
  CHECK(WeightHomes(uneven, spread) == std::vector<TierId>{kNvme, kDdr, kNvme, kDdr, kNvme, kNvme});
  CHECK(spread.homed_bytes_per_tier[kDdr] == 200);
  // nvme 427 B keeps nothing free: room for 427. After w0, w2 and w4 (300 B) w5 no longer
  // fits, and ddr holds 500 B, 50 over: the earliest still there, w1, follows (nvme 400 of
  // 427).
  const ValueHomes topped_up = HomesOf(uneven, TieredProfile(220, 480, 427));
  CHECK(WeightHomes(uneven, topped_up) ==
        std::vector<TierId>{kNvme, kNvme, kNvme, kDdr, kNvme, kDdr});
  CHECK(topped_up.homed_bytes_per_tier[kDdr] == 400);
}

TEST_CASE("homes: a value written in place spills only where it can be written back") {
  Chain c = MakeChain();
  // w0 is updated in place by n0 (as an optimizer step would), and nvme can only be read:
  // w0 is due first (share 50 > 0) but stays; w1 (walked 200: 100 > 0) and w2 (300: 150 >
  // 100) move; w3 (400: 200) stays; w4 (500: 250 > 200) moves; w5 (600: 300) stays.
  c.graph.values[c.w[0]].written_by = 0;  // node n0
  HardwareProfile profile = TieredProfile(220, 320, int64_t{1} << 30);
  profile.links.erase(profile.links.begin() + 2);  // ddr -> nvme gone; nvme -> ddr stays
  const ValueHomes homes = HomesOf(c, profile);
  CHECK(WeightHomes(c, homes) == std::vector<TierId>{kDdr, kNvme, kNvme, kDdr, kNvme, kDdr});
}

TEST_CASE("homes: a tier keeps for staging what its Stores and one staged value need") {
  // 32 layers, 1 B activations: 33 B stored in ddr (x and a0..a31), and nvme's route to hbm
  // stages in ddr, where the largest value off the device (a 100 B weight) can pass: ddr
  // 3300 B keeps 33 + 100 = 133 B (1/16 would be 206), nvme keeps nothing (no route stages
  // in it, nothing is stored there), hbm nothing (no copy waits on the device tier).
  const Chain c = MakeChain(32, 1);
  const ValueHomes homes = HomesOf(c, TieredProfile(220, 3300, int64_t{1} << 30));
  CHECK(homes.staging_reserve_bytes_per_tier == std::vector<int64_t>{0, 133, 0});
  // Room 3300 - 133 = 3167 for 3200 B of weights: 33 over. w0 (walked 100: share 100 * 33 /
  // 3200 = 1 > 0) moves, and no share reaches the 100 B moved again: one weight spills, where
  // the 1/16 reserve's 106 over also spilled w30 (walked 3100: 102 > 100).
  std::vector<TierId> expected(32, kDdr);
  expected[0] = kNvme;
  CHECK(WeightHomes(c, homes) == expected);
  CHECK(homes.homed_bytes_per_tier[kDdr] == 3100);
  // At 1600 B, 1/16 (100 B) is less than the 133 B needed: the reserve stays 1/16.
  CHECK(HomesOf(c, TieredProfile(220, 1600, int64_t{1} << 30)).staging_reserve_bytes_per_tier ==
        std::vector<int64_t>{0, 100, 0});
}

TEST_CASE("homes: a tier no route stages in keeps room for its Stores alone") {
  // hbm <-> ddr only: nothing is staged in ddr, so 3300 B keep the 33 B stored there (x and
  // a0..a31), not 33 + 100.
  const Chain c = MakeChain(32, 1);
  HardwareProfile profile = UnitProfile();
  profile.tiers[kDdr].capacity_bytes = 3300;
  CHECK(HomesOf(c, profile).staging_reserve_bytes_per_tier == std::vector<int64_t>{0, 33});
  // A host computing from ddr writes there the values it produces, stored anywhere: with the
  // activations stored on a third tier (ddr's links given 10 ns of latency, a 1 B round trip
  // there costs 22 ns against 2 ns), ddr still keeps the 32 B of a0..a31 (x enters the run; no
  // step writes it), and the third tier its 33 B of Stores.
  HardwareProfile host = HalfFlopHostProfile();
  host.tiers[kDdr].capacity_bytes = 3300;
  host.links[0].latency_ns = 10;
  host.links[1].latency_ns = 10;
  host.tiers.push_back({"cxl", int64_t{1} << 30, false});
  host.links.push_back({0, 2, kOneBytePerNs, 0, 1});
  host.links.push_back({2, 0, kOneBytePerNs, 0, 1});
  const ValueHomes hosted = HomesOf(c, host);
  CHECK(hosted.store_tier[c.graph.nodes[0].outputs[0]] == 2);
  CHECK(hosted.staging_reserve_bytes_per_tier == std::vector<int64_t>{0, 32, 33});
}

// RoutedMoe (one token, top 2 of 8; fc1..fc3 16384 B each) with a dense weight "table"
// (16384 B) that the router's node reads whole, first in the model's order.
struct MoeWithTable {
  testing::RoutedMoe moe;
  ValueId table;
  MoeWithTable() {
    table = Weight(moe.graph, "table", 16384);
    moe.graph.nodes[moe.route].inputs.push_back(table);
    moe.graph.values[table].consumers.push_back(moe.route);
  }
  std::vector<TierId> Homes(const ValueHomes& homes) const {
    return {homes.home_tier[table], homes.home_tier[moe.fc1], homes.home_tier[moe.fc2],
            homes.home_tier[moe.fc3]};
  }
};

TEST_CASE("homes: experts fetched after route spill before a dense weight") {
  MoeWithTable f;
  SECTION("the experts cover the overflow") {
    // ddr 52480 B keeps 3280 for staging: room 49200 for 4 x 16384 = 65536 B, 16336 over.
    // Walked alone, fc1..fc3 (49152 B), one node's run (share 49152 * 16336 / 49152 = 16336
    // > 0 moved) moves up to the overflow: fc1 (16384 >= 16336); fc2 and fc3 stay; ddr then
    // holds 49152.
    // The rule for dense values alone would have moved the table, the first used (share
    // 16384 * 16336 / 65536 = 4084 > 0), which a plan moves whole each iteration where fc1
    // moves 2 of its 8 experts.
    const HardwareProfile profile = TieredProfile(1 << 20, 52480, 1 << 30);
    const ValueHomes homes = DecideHomes(f.moe.graph, profile, FindDeviceRoutes(profile));
    CHECK(f.Homes(homes) == std::vector<TierId>{kDdr, kNvme, kDdr, kDdr});
    CHECK(homes.homed_bytes_per_tier[kDdr] == 49152);
  }
  SECTION("what the experts leave over spreads over the rest") {
    // ddr 17408 B keeps 1088: room 16320, 49216 over, more than the experts' 49152: each
    // expert operand moves (shares 16384, 32768, 49152), and the 64 B still over move the
    // table (walked 16384 of 16384: share 64 > 0).
    const HardwareProfile profile = TieredProfile(1 << 20, 17408, 1 << 30);
    const ValueHomes homes = DecideHomes(f.moe.graph, profile, FindDeviceRoutes(profile));
    CHECK(f.Homes(homes) == std::vector<TierId>(4, kNvme));
  }
  SECTION("a prefill touching every expert moves them whole: no preference") {
    // 64 tokens: each expert is touched with 1 - (6/8)^64 > 1 - 1e-7, so a routed fetch
    // moves 16384 B in expectation (rounded to the byte), the whole operand: the plain spread
    // of the first case moves the table (share 4084 > 0) and then nothing (8168, 12252 and
    // 16336 <= 16384).
    f.moe.graph.values[f.moe.x].shape = {1, 64, 16};
    const HardwareProfile profile = TieredProfile(1 << 20, 52480, 1 << 30);
    const ValueHomes homes = DecideHomes(f.moe.graph, profile, FindDeviceRoutes(profile));
    CHECK(f.Homes(homes) == std::vector<TierId>{kNvme, kDdr, kDdr, kDdr});
  }
}

TEST_CASE("homes: one MoE node's expert operands spill together") {
  // Two MoE nodes after one router, each reading three stacked operands of 16384 B: moe reads
  // fc1..fc3, moe2 g1..g3. Each node fetches its operands after the router, each on a
  // channel of the slow link: spilled together they cross at once.
  testing::RoutedMoe f;
  std::vector<ValueId> g;
  for (const char* name : {"g1", "g2", "g3"}) {
    g.push_back(testing::Tensor(f.graph, name, {8, 32, 16}));
    f.graph.values[g.back()].is_initializer = true;
    f.graph.values[g.back()].value_class = ValueClass::kWeight;
  }
  const ValueId y2 = testing::Tensor(f.graph, "y2", {1, 1, 16});
  const NodeId moe2 = testing::Op(f.graph, "moe2", "MoE", {f.y, f.router, g[0], g[1], g[2]}, {y2});
  f.graph.nodes[moe2].domain = "com.microsoft";
  f.graph.nodes[moe2].int_attributes["k"] = 2;
  // ddr 52480 B keeps 3280: room 49200 for 6 x 16384 = 98304 B, 49104 over. The run fc1..fc3
  // (walked 49152: share 49152 * 49104 / 98304 = 24552 > 0 moved) moves up to the overflow:
  // fc1, fc2 and fc3 (49152 >= 49104). The run g1..g3 (walked 98304: share 49104 <= 49152)
  // stays. Value by value the spread would have moved fc1 (share 8184 > 0), fc3 (24552 >
  // 16384) and g2 (40920 > 32768): both nodes would wait on the slow link.
  const HardwareProfile profile = TieredProfile(1 << 20, 52480, 1 << 30);
  const ValueHomes homes = DecideHomes(f.graph, profile, FindDeviceRoutes(profile));
  const std::vector<TierId> tiers = {homes.home_tier[f.fc1], homes.home_tier[f.fc2],
                                     homes.home_tier[f.fc3], homes.home_tier[g[0]],
                                     homes.home_tier[g[1]],  homes.home_tier[g[2]]};
  CHECK(tiers == std::vector<TierId>{kNvme, kNvme, kNvme, kDdr, kDdr, kDdr});
  CHECK(homes.homed_bytes_per_tier[kDdr] == 49152);
}

TEST_CASE("homes: a plan on a full home tier fetches each weight from its own home") {
  const Chain c = MakeChain(40);
  // 40 weights (4000 B); ddr 3200 B keeps 200 for staging (two weights in transit), so 3000 B
  // of homes fit, 1000 B over: a quarter, so every fourth weight (w0, w4, ..., w36) spills to
  // nvme. At a 920 B budget each step's 120 B leave room for eight more weights, so at every
  // step at least two of the ten nvme-homed weights are off the device: each is fetched every
  // iteration, starting at nvme and staging in ddr.
  const HardwareProfile profile = TieredProfile(920, 3200, int64_t{1} << 30);
  const PlanResult result = PlanAndVerify(c.graph, profile, Budget(920));
  INFO(result.infeasibility.message);
  REQUIRE(result.status == PlanStatus::kPlanned);
  const Plan& plan = result.plan;
  int nvme_fetches = 0;
  for (size_t i = 0; i < c.w.size(); ++i) {
    const TierId home = i % 4 == 0 ? kNvme : kDdr;
    bool first_hop = true;
    for (int32_t s : StepsOf(plan, StepKind::kPrefetch, c.w[i])) {
      const PlanStep& step = plan.steps[s];
      if (step.src_tier == kNvme) ++nvme_fetches;
      if (first_hop) CHECK(step.src_tier == home);       // a fetch starts at the weight's home
      first_hop = step.dst_tier == profile.device_tier;  // the next Prefetch starts a fetch
    }
  }
  CHECK(nvme_fetches >= 2);
}

}  // namespace
}  // namespace hyperplan::planner_test
