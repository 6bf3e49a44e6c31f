// ParseOrtProfile / ReadOrtProfile: ONNX Runtime's profiling JSON -> median kernel time per
// node. Expected medians are worked out by hand beside each assertion (1 us = 1000 ns).
#include "hyperplan/adapters/ort_profile.h"

#include <catch2/catch.hpp>
#include <string>

#include "hyperplan/error.h"

namespace hyperplan {
namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

std::string Kernel(const std::string& node, const std::string& dur) {
  return R"({"cat": "Node", "ph": "X", "name": ")" + node + R"(_kernel_time", "dur": )" + dur +
         R"(, "args": {"op_name": "MatMul"}})";
}

// The Error that parsing `json` must throw.
Error ParseError(const std::string& json) {
  try {
    ParseOrtProfile(json, "prof.json");
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::kInputFile);
    return error;
  }
  FAIL("the profile was accepted");
  return Error(ErrorKind::kInternal, "");
}

TEST_CASE("Median kernel time per node over runs", "[node_times][ort]") {
  const MeasuredNodeTimes times =
      ParseOrtProfile("[" + Kernel("a", "40") + "," + Kernel("b", "7") + "," + Kernel("a", "10") +
                          "," + Kernel("b", "5") + "," + Kernel("a", "20") + "," +
                          Kernel("b", "6") + "," + Kernel("b", "8") + "," + Kernel("c", "3") + "]",
                      "prof.json");
  REQUIRE(times.median_ns.size() == 3);
  CHECK(times.median_ns.at("a") == 20'000);  // 10, 20, 40 us: the middle is 20 us
  CHECK(times.median_ns.at("b") == 6'500);   // 5, 6, 7, 8 us: (6 + 7) / 2 = 6.5 us
  CHECK(times.median_ns.at("c") == 3'000);   // one run
  CHECK(times.kernel_events == 8);
  CHECK(times.most_runs == 4);  // b
}

TEST_CASE("Only node kernel times count", "[node_times][ort]") {
  const MeasuredNodeTimes times = ParseOrtProfile(R"([
    {"cat": "Session", "name": "model_run", "dur": 1000},
    {"cat": "Session", "name": "x_kernel_time", "dur": 1000},
    {"cat": "Node", "name": "a_fence_before", "dur": 0},
    {"cat": "Node", "name": "a_kernel_time", "dur": 12.5},
    {"cat": "Node", "name": "a_fence_after", "dur": 0},
    {"cat": "Node", "name": "_kernel_time", "dur": 9},
    {"cat": "Api", "name": "cudaLaunchKernel", "dur": 2},
    {"name": "no category"}
  ])",
                                                  "prof.json");
  // Session events, fences, other categories and the nameless node are skipped; a fractional
  // duration is kept: 12.5 us = 12'500 ns.
  REQUIRE(times.median_ns.size() == 1);
  CHECK(times.median_ns.at("a") == 12'500);
  CHECK(times.kernel_events == 1);
}

TEST_CASE("Chrome's object form with traceEvents is read too", "[node_times][ort]") {
  const MeasuredNodeTimes times =
      ParseOrtProfile(R"({"traceEvents": [)" + Kernel("n", "2") + "]}", "prof.json");
  CHECK(times.median_ns.at("n") == 2'000);
}

TEST_CASE("Bad profiles name the file and the entry", "[node_times][ort]") {
  CHECK_THAT(ParseError("[{\"cat\": \"Node\",").what(),
             StartsWith("prof.json: not valid JSON: [json.exception.parse_error.101] parse error "
                        "at line 1, column 17"));
  CHECK(std::string(ParseError(R"({"events": []})").what()) ==
        "prof.json: expected ONNX Runtime's profile (a JSON array of trace events, or an object "
        "with a \"traceEvents\" array), found object");
  CHECK(std::string(ParseError("[" + Kernel("a", "1") + ", 7]").what()) ==
        "prof.json: entry 1: expected a trace event (an object), found number");
  CHECK(std::string(ParseError("[" + Kernel("a", "\"5\"") + "]").what()) ==
        "prof.json: entry 0 (node 'a'): \"dur\" must be a number of microseconds, found string");
  CHECK(std::string(ParseError("[" + Kernel("a", "1") + "," + Kernel("b", "-3") + "]").what()) ==
        "prof.json: entry 1 (node 'b'): \"dur\" is negative (-3)");
  CHECK(std::string(ParseError(R"([{"cat": "Node", "name": "a_kernel_time"}])").what()) ==
        "prof.json: entry 0 (node 'a'): \"dur\" is missing");
  CHECK_THAT(ParseError("[" + Kernel("a", "1e300") + "]").what(), Contains("is too large"));
  CHECK(std::string(ParseError(R"([{"cat": "Session", "name": "model_run", "dur": 5}])").what()) ==
        "prof.json: no node kernel times (events with \"cat\": \"Node\" and a name ending in "
        "\"_kernel_time\"); profile at least one run with enable_profiling");
}

TEST_CASE("ReadOrtProfile: unreadable files are input-file errors naming the path",
          "[node_times][ort]") {
  try {
    ReadOrtProfile("/nonexistent/prof.json");
    FAIL("accepted");
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::kInputFile);
    CHECK(std::string(error.what()) ==
          "/nonexistent/prof.json: cannot read: No such file or directory");
  }
  const std::string file =
      std::string(HYPERPLAN_SOURCE_DIR) + "/tests/data/ort-profile-llama-tiny-decode.json";
  const MeasuredNodeTimes times = ReadOrtProfile(file);
  // The bundled profile: q_proj 40, 10, 20 us; down_proj 7, 5, 6, 8 us; lm_head 900, 300,
  // 310 us; one MemcpyToHost of 3 us.
  CHECK(times.median_ns.at("/model/layers.0/attn/q_proj/MatMul") == 20'000);
  CHECK(times.median_ns.at("/model/layers.0/mlp/down_proj/MatMul") == 6'500);
  CHECK(times.median_ns.at("/lm_head/MatMul") == 310'000);
  CHECK(times.median_ns.at("MemcpyToHost_token_0") == 3'000);
  CHECK(times.kernel_events == 11);  // 3 + 4 + 3 + 1
  CHECK(times.most_runs == 4);
}

}  // namespace
}  // namespace hyperplan
