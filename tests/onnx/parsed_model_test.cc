// A model parsed once and imported at many dims (ParsedOnnxModel, for `hyperplan fit`) gives
// the graphs a fresh import of the file gives; dim ties bind partners from expressions.
#include <catch2/catch.hpp>
#include <string>

#include "hyperplan/adapters/dim_ties.h"
#include "hyperplan/adapters/onnx_import.h"
#include "hyperplan/error.h"

namespace hyperplan::test {
namespace {

const std::string kDecode = std::string(HYPERPLAN_SOURCE_DIR) + "/models/llama-tiny-decode.onnx";

ImportOptions DecodeAt(int64_t past_sequence) {
  ImportOptions options;
  options.dims = {{"batch", 1}, {"sequence", 1}, {"past_sequence", past_sequence}};
  return options;
}

// Same values (names, shapes, bytes, classes) and nodes (names, edges).
void CheckSameGraph(const Graph& a, const Graph& b) {
  REQUIRE(a.values.size() == b.values.size());
  REQUIRE(a.nodes.size() == b.nodes.size());
  for (size_t v = 0; v < a.values.size(); ++v) {
    INFO(a.values[v].name);
    CHECK(a.values[v].name == b.values[v].name);
    CHECK(a.values[v].shape == b.values[v].shape);
    CHECK(a.values[v].bytes == b.values[v].bytes);
    CHECK(a.values[v].value_class == b.values[v].value_class);
  }
  for (size_t n = 0; n < a.nodes.size(); ++n) {
    CHECK(a.nodes[n].name == b.nodes[n].name);
    CHECK(a.nodes[n].inputs == b.nodes[n].inputs);
    CHECK(a.nodes[n].outputs == b.nodes[n].outputs);
  }
  CHECK(a.bound_dims == b.bound_dims);
  CHECK(a.warnings == b.warnings);
}

}  // namespace

TEST_CASE("parsed once: each import equals a fresh import of the file", "[onnx][parsed]") {
  const ParsedOnnxModel parsed(kDecode);
  const Graph at_32 = parsed.Import(DecodeAt(32));
  CheckSameGraph(at_32, ImportOnnxModel(kDecode, DecodeAt(32)));
  // Another binding after that one: the parsed model was not bound in place.
  const Graph at_16 = parsed.Import(DecodeAt(16));
  CheckSameGraph(at_16, ImportOnnxModel(kDecode, DecodeAt(16)));
  // past_key_values.0.key [1, 2, P, 16] float: 128 P bytes.
  const ValueId cache = at_16.FindValue("past_key_values.0.key");
  CHECK(at_16.values[cache].bytes == 128 * 16);
  CHECK(at_32.values[cache].bytes == 128 * 32);
}

TEST_CASE("parsed once: a missing file is the import's error", "[onnx][parsed]") {
  try {
    ParsedOnnxModel parsed("/nonexistent/model.onnx");
    FAIL("parsed a missing file");
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::kInputFile);
    CHECK_THAT(error.what(), Catch::StartsWith("/nonexistent/model.onnx: cannot open"));
  }
}

TEST_CASE("dim ties: partners from expressions over bound dims", "[onnx][ties]") {
  std::map<std::string, int64_t, std::less<>> dims = {{"past", 7}, {"sequence", 1}};
  BindTiedDims({"total=past + sequence", "twice=2*total", "half=twice//4"}, dims);
  CHECK(dims.at("total") == 8);   // 7 + 1
  CHECK(dims.at("twice") == 16);  // 2 x 8, from the tie before it
  CHECK(dims.at("half") == 4);    // 16 // 4
  // Binding a tie to the value it already has is fine.
  BindTiedDims({"total=past+1"}, dims);

  auto problem = [&](const std::string& tie) {
    std::map<std::string, int64_t, std::less<>> copy = dims;
    try {
      BindTiedDims({tie}, copy);
    } catch (const Error& error) {
      CHECK(error.kind() == ErrorKind::kUsage);
      return std::string(error.what());
    }
    return std::string("no error");
  };
  CHECK(problem("x=nope + 1") ==
        "--tie x=nope + 1: 'nope' is not bound (bind it with --dim nope=VALUE)");
  CHECK_THAT(problem("x=past - 8"), Catch::Contains("negative (-1)"));
  CHECK_THAT(problem("x=past/2"), Catch::Contains("not a whole number"));  // 7 / 2
  CHECK(problem("total=past") ==
        "--tie total=past: 'total' is also bound to 8, and the tie "
        "makes it 7");

  CHECK(DimTieProblem("total=past+1").empty());
  CHECK_THAT(DimTieProblem("total"), Catch::Contains("expected NAME=EXPRESSION"));
  CHECK_THAT(DimTieProblem("1x=past"), Catch::Contains("is not a dim name"));
  CHECK_THAT(DimTieProblem("x=(past"), Catch::Contains("is not an expression"));
}

}  // namespace hyperplan::test
