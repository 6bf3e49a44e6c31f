// Printable names for ids (hyperplan/names.h): the one formatter per kind that the summary,
// the verifier, the wait check and the report share.
#include "hyperplan/names.h"

#include <catch2/catch.hpp>

#include "support/tiny_graph.h"

using namespace hyperplan;
using namespace hyperplan::testing;

TEST_CASE("names of values and nodes, and '?' for ids outside the graph") {
  Graph graph;
  const ValueId w = Weight(graph, "w", 100);
  const ValueId y = Bytes(graph, "y", 40);
  Op(graph, "n0", "MatMul", {w}, {y});
  CHECK(ValueName(graph, y) == "y");
  CHECK(QuotedValueName(graph, y) == "'y'");
  CHECK(ValueClassText(graph, w) == "weight");
  CHECK(NodeName(graph, 0) == "n0");
  CHECK(NodeOpType(graph, 0) == "MatMul");
  // A malformed plan's ids still print: unquoted "?" even where names are quoted.
  CHECK(ValueName(graph, 2) == "?");
  CHECK(QuotedValueName(graph, -1) == "?");
  CHECK(ValueClassText(graph, 7) == "?");
  CHECK(NodeName(graph, 1) == "?");
  CHECK(NodeOpType(graph, kNoNode) == "?");
}

TEST_CASE("names of tiers, and '?' for ids outside the profile") {
  HardwareProfile profile;
  profile.tiers.push_back({"hbm", 1000, true});
  profile.tiers.push_back({"ddr", 4000, false});
  CHECK(TierName(profile, 0) == "hbm");
  CHECK(TierName(profile, 1) == "ddr");
  CHECK(TierName(profile, 2) == "?");
  CHECK(TierName(profile, kNoTier) == "?");
}
