// MatchNodeTimes: measured times by node name onto a graph; the rest keep the roofline.
// Unit-rate profile (1 FLOP/ns, 1 byte/ns): the estimates are worked out beside each check.
#include <catch2/catch.hpp>

#include "hyperplan/node_times.h"
#include "support/tiny_graph.h"

namespace hyperplan {
namespace {

using testing::Input;
using testing::MarkOutput;
using testing::Op;
using testing::Tensor;
using testing::UnitProfile;

TEST_CASE("Measured names replace the estimate, others keep it", "[node_times][match]") {
  Graph graph;
  const ValueId x = Input(graph, "x", 400);
  const ValueId y = Tensor(graph, "y", {100});  // float32: 400 bytes
  const ValueId z = Tensor(graph, "z", {100});
  Op(graph, "relu", "Relu", {x}, {y});
  Op(graph, "neg", "Neg", {y}, {z});
  MarkOutput(graph, z);
  const HardwareProfile profile = UnitProfile();

  const NodeTimeMatch match =
      MatchNodeTimes(graph, profile, {{"relu", 7'000}, {"fused_gelu", 9'000}});
  REQUIRE(match.node_time_ns.size() == 2);
  CHECK(match.node_time_ns[0] == 7'000);  // measured
  // neg keeps the roofline: it reads 400 bytes and writes 400 at 1 byte/ns, 800 ns, well
  // above its 100 FLOPs at 1 FLOP/ns.
  CHECK(match.node_time_ns[1] == 800);
  CHECK(match.matched_nodes == 1);
  CHECK(match.unmatched_nodes == 1);
  CHECK(match.unknown_names == std::vector<std::string>{"fused_gelu"});

  const NodeTimeMatch none = MatchNodeTimes(graph, profile, {});
  CHECK(none.matched_nodes == 0);
  CHECK(none.unmatched_nodes == 2);
  CHECK(none.node_time_ns[1] == 800);
}

}  // namespace
}  // namespace hyperplan
