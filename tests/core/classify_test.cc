// Classification by structure, exporter conventions and user rules.
#include "hyperplan/classify.h"

#include <catch2/catch.hpp>

#include "hyperplan/error.h"
#include "support/tiny_graph.h"

using namespace hyperplan;
using namespace hyperplan::testing;

namespace {

ValueClass ClassOf(const Graph& graph, const std::string& name) {
  return graph.values[graph.FindValue(name)].value_class;
}

}  // namespace

TEST_CASE("structure decides first") {
  Graph graph;
  Weight(graph, "w", 1);
  Input(graph, "x", 1);
  MarkOutput(graph, Bytes(graph, "y", 1));
  Bytes(graph, "a", 1);
  ClassifyValues(graph, {});
  CHECK(ClassOf(graph, "w") == ValueClass::kWeight);
  CHECK(ClassOf(graph, "x") == ValueClass::kGraphInput);
  CHECK(ClassOf(graph, "y") == ValueClass::kGraphOutput);
  CHECK(ClassOf(graph, "a") == ValueClass::kActivation);
}

TEST_CASE("exporter naming conventions mark KV caches and optimizer state") {
  Graph graph;
  for (const char* name : {"past_key_values.0.key", "past_key_values.31.value", "present.7.key",
                           "present_value_3", "past_0", "present.2", "layers.4.key_cache"}) {
    Input(graph, name, 1);
  }
  for (const char* name : {"model.layers.0.mlp.weight.exp_avg", "fc1.weight.exp_avg_sq",
                           "Moment_1_fc1.weight", "fc2.bias_moment_2"}) {
    Weight(graph, name, 1);
  }
  // Near misses stay what their structure says.
  for (const char* name : {"pastry", "present_day", "exp_avg", "key_cache_size_hint"}) {
    Input(graph, name, 1);
  }
  ClassifyValues(graph, {});
  for (const char* name : {"past_key_values.0.key", "past_key_values.31.value", "present.7.key",
                           "present_value_3", "past_0", "present.2", "layers.4.key_cache"}) {
    INFO(name);
    CHECK(ClassOf(graph, name) == ValueClass::kKvCache);
  }
  for (const char* name : {"model.layers.0.mlp.weight.exp_avg", "fc1.weight.exp_avg_sq",
                           "Moment_1_fc1.weight", "fc2.bias_moment_2"}) {
    INFO(name);
    CHECK(ClassOf(graph, name) == ValueClass::kOptimizerState);
  }
  for (const char* name : {"pastry", "present_day", "exp_avg", "key_cache_size_hint"}) {
    INFO(name);
    CHECK(ClassOf(graph, name) == ValueClass::kGraphInput);
  }
}

TEST_CASE("user rules override conventions, first match wins") {
  Graph graph;
  Input(graph, "cache.0.k", 1);
  Input(graph, "past_key_values.0.key", 1);
  Weight(graph, "adam.m.fc1", 1);
  ClassifyValues(graph, {{ValueClass::kKvCache, R"(cache\.\d+\.[kv])"},
                         {ValueClass::kActivation, "past_key_values.*"},
                         {ValueClass::kOptimizerState, "adam\\..*"},
                         {ValueClass::kWeight, "adam\\..*"}});
  CHECK(ClassOf(graph, "cache.0.k") == ValueClass::kKvCache);
  CHECK(ClassOf(graph, "past_key_values.0.key") == ValueClass::kActivation);
  CHECK(ClassOf(graph, "adam.m.fc1") == ValueClass::kOptimizerState);
}

TEST_CASE("a rule must match the whole name") {
  Graph graph;
  Input(graph, "xcache", 1);
  ClassifyValues(graph, {{ValueClass::kKvCache, "cache"}});
  CHECK(ClassOf(graph, "xcache") == ValueClass::kGraphInput);
}

TEST_CASE("an invalid pattern is a usage error naming the rule and RE2's reason") {
  Graph graph;
  Input(graph, "x", 1);
  try {
    ClassifyValues(graph, {{ValueClass::kKvCache, "(unclosed"}});
    FAIL("expected an error");
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::kUsage);
    CHECK(std::string(error.what()) ==
          "class rule kv_cache='(unclosed': invalid regular expression '(unclosed' (RE2 syntax): "
          "missing ): (unclosed");
  }
  CHECK(ClassPatternError("past\\.\\d+") == "");
  // Backreferences are not RE2 syntax: the message says which syntax applies.
  CHECK_THAT(ClassPatternError("(a)\\1"), Catch::Contains("(RE2 syntax)"));
}

// Regression (issue 13): std::regex matched by recursion, one frame per character, and a
// 100'000-character name overflowed the stack (SIGSEGV) in the KV-cache convention and in user
// patterns. RE2 matches in linear time without recursion.
TEST_CASE("100k-character names classify without blowing the stack") {
  Graph graph;
  const std::string cache_name = std::string(100'000 - 10, 'a') + ".key_cache";
  REQUIRE(cache_name.size() == 100'000);
  Input(graph, cache_name, 1);
  const std::string vw_name = std::string(50'000, 'v') + std::string(50'000, 'w');
  Input(graph, vw_name, 1);
  const std::string near_miss = std::string(99'999, 'v') + "x";
  Input(graph, near_miss, 1);
  ClassifyValues(graph, {{ValueClass::kWeight, "(v|w)*"}});
  // "<a...a>.key_cache" matches the convention .*[._](key|value)_cache([._]\d+)?.
  CHECK(ClassOf(graph, cache_name) == ValueClass::kKvCache);
  // Only v and w: the user rule matches the whole name.
  CHECK(ClassOf(graph, vw_name) == ValueClass::kWeight);
  // The trailing x is outside (v|w)*: structure decides (a graph input).
  CHECK(ClassOf(graph, near_miss) == ValueClass::kGraphInput);
}
