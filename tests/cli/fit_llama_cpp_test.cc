// fit's llama.cpp flags in process: compact number alternations (checked against every number
// by std::regex, as llama.cpp matches), the -ot entries per part, and shell quoting.
#include "cli/fit_llama_cpp.h"

#include <catch2/catch.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

using hyperplan::cli::LlamaCppArgs;
using hyperplan::cli::NumberAlternation;
using hyperplan::cli::ShellLine;

namespace {

// Whether the alternation matches exactly the numbers in `expected`, over 0 .. 399.
void CheckMatchesExactly(const std::string& alternation, const std::set<int>& expected) {
  const std::regex whole("^(" + alternation + ")$");
  for (int n = 0; n < 400; ++n) {
    INFO(alternation << " against " << n);
    CHECK(std::regex_match(std::to_string(n), whole) == (expected.count(n) == 1));
  }
}

hyperplan::fit::v1::FitPoint WithLayers(const std::vector<int>& layers, const std::string& part) {
  hyperplan::fit::v1::FitPoint point;
  for (int layer : layers) {
    auto* entry = point.add_host_layers();
    entry->set_layer(layer);
    entry->add_parts(part);
  }
  return point;
}

}  // namespace

TEST_CASE("llama.cpp flags: runs of layers as compact alternations") {
  // 0-31: the single digits, then 10-29 as two decades, then 30-31.
  CHECK(NumberAlternation({31, 0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14,
                           15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30}) ==
        "[0-9]|[12][0-9]|3[01]");
  // 40-79: four decades in one class.
  std::vector<int32_t> forties;
  for (int n = 40; n <= 79; ++n) forties.push_back(n);
  CHECK(NumberAlternation(forties) == "[4-7][0-9]");
  // A lone layer, a gap, and a run crossing into three digits: 5, 8-12, 98-101.
  CHECK(NumberAlternation({5, 8, 9, 10, 11, 12, 98, 99, 100, 101}) == "5|[89]|1[0-2]|9[89]|10[01]");
  CheckMatchesExactly("5|[89]|1[0-2]|9[89]|10[01]", {5, 8, 9, 10, 11, 12, 98, 99, 100, 101});
  std::set<int> every;
  std::vector<int32_t> scattered;
  for (int n = 0; n < 260; n += 3) {  // no two consecutive: one pattern each
    every.insert(n);
    scattered.push_back(n);
  }
  CheckMatchesExactly(NumberAlternation(scattered), every);
}

TEST_CASE("llama.cpp flags: -ngl 999, then one -ot with an entry per part") {
  CHECK(LlamaCppArgs(hyperplan::fit::v1::FitPoint()) == std::vector<std::string>{"-ngl", "999"});
  hyperplan::fit::v1::FitPoint point = WithLayers({0, 1, 2, 3}, "MLP");
  point.add_host_parts("LM head");
  point.add_host_parts("embedding");
  const std::vector<std::string> args = LlamaCppArgs(point);
  REQUIRE(args.size() == 5);
  CHECK(args[2] == "-ot");
  CHECK(args[3] ==
        "^blk\\.([0-3])\\.ffn_(gate|up|down)(_exps|_shexp)?\\.weight=CPU,"
        "^output\\.weight=CPU,^token_embd\\.weight=CPU");
  CHECK(args[4] == "--no-op-offload");
  // Each entry keeps exactly the tensors it names, as llama.cpp's regex_search would.
  const std::regex mlp("^blk\\.([0-3])\\.ffn_(gate|up|down)(_exps|_shexp)?\\.weight");
  CHECK(std::regex_search("blk.3.ffn_down.weight", mlp));
  CHECK(std::regex_search("blk.2.ffn_up_exps.weight", mlp));
  CHECK_FALSE(std::regex_search("blk.13.ffn_down.weight", mlp));
  CHECK_FALSE(std::regex_search("blk.3.ffn_norm.weight", mlp));
  CHECK_FALSE(std::regex_search("blk.3.ffn_gate_inp.weight", mlp));  // the router stays
  CHECK_FALSE(std::regex_search("blk.0.attn_output.weight", std::regex("^output\\.weight")));
}

TEST_CASE("llama.cpp flags: attention and norms") {
  hyperplan::fit::v1::FitPoint point = WithLayers({7}, "attention");
  auto* norms = point.add_host_layers();
  norms->set_layer(8);
  norms->add_parts("norms");  // no GGUF part: left where -ngl puts it
  const std::vector<std::string> args = LlamaCppArgs(point);
  REQUIRE(args.size() == 5);
  CHECK(args[3] == "^blk\\.(7)\\.attn_(q|k|v|output)\\.weight=CPU");
  // Only norms on the host: nothing to override.
  CHECK(LlamaCppArgs(WithLayers({1}, "norms")).size() == 2);
}

TEST_CASE("llama.cpp flags: one shell line") {
  CHECK(ShellLine({"-ngl", "999"}) == "-ngl 999");
  CHECK(ShellLine({"-ot", "^blk\\.([0-3])\\.x=CPU", "it's"}) ==
        "-ot '^blk\\.([0-3])\\.x=CPU' 'it'\\''s'");
  CHECK(ShellLine({""}) == "''");
}
