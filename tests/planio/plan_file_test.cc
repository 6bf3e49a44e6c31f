// Reading plan files: truncated, foreign, newer-major and newer-minor plans, and encodings by
// extension. Every refusal is Error(kPlanFile) with the file's name and the reason.
#include "planio/plan_file.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "hyperplan/error.h"
#include "planio_fixture.h"

using namespace hyperplan;
using namespace hyperplan::planio_test;
namespace pb = hyperplan::plan::v1;

namespace {

// The message of the Error(kPlanFile) that decoding `bytes` throws; "" when it decodes.
std::string DecodeError(const std::string& bytes) {
  try {
    planio::DecodePlan(bytes, "plan.pb");
    return "";
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::kPlanFile);
    CHECK_THAT(error.what(), Catch::StartsWith("plan.pb: "));
    return error.what();
  }
}

}  // namespace

TEST_CASE("plan file: every strict prefix of a binary plan is refused") {
  const std::string bytes = planio::EncodeBinary(ChainFixture().Message());
  REQUIRE(DecodeError(bytes).empty());
  for (size_t length = 0; length < bytes.size(); ++length) {
    INFO("cut to " << length << " of " << bytes.size() << " bytes");
    CHECK_FALSE(DecodeError(bytes.substr(0, length)).empty());
  }
  // Cut between two fields, the parse succeeds; the missing end marker says why.
  pb::Plan without_end = ChainFixture().Message();
  without_end.clear_complete();
  CHECK_THAT(DecodeError(planio::EncodeBinary(without_end)), Catch::Contains("truncated"));
}

TEST_CASE("plan file: a truncated JSON plan is refused") {
  const std::string json =
      planio::EncodePlan(ChainFixture().Message(), planio::PlanEncoding::kJson);
  CHECK_THAT(DecodeError(json.substr(0, json.size() / 2)), Catch::Contains("invalid or truncated"));
  CHECK_THAT(DecodeError(json.substr(0, json.size() - 2)), Catch::Contains("invalid or truncated"));
}

TEST_CASE("plan file: foreign files are not plans") {
  CHECK_THAT(DecodeError(""), Catch::Contains("empty file"));
  CHECK_THAT(DecodeError("hello, world\n"), Catch::Contains("not a hyperplan plan"));
  CHECK_THAT(DecodeError("{\"name\": \"a profile\"}"), Catch::Contains("not a hyperplan plan"));
  // An ONNX model is valid protobuf, but not a plan.
  std::ifstream model(std::string(HYPERPLAN_SOURCE_DIR) + "/models/llama-tiny-decode.onnx",
                      std::ios::binary);
  const std::string onnx((std::istreambuf_iterator<char>(model)), {});
  REQUIRE(onnx.size() > 1000);
  CHECK_THAT(DecodeError(onnx), Catch::Contains("not a hyperplan plan"));
  // Another schema's header name.
  pb::Plan other = ChainFixture().Message();
  other.mutable_format()->set_schema("hyperplan.report");
  CHECK_THAT(DecodeError(planio::EncodeBinary(other)), Catch::Contains("not a hyperplan plan"));
}

TEST_CASE("plan file: a newer major version is refused by name, a newer minor is read") {
  pb::Plan newer = ChainFixture().Message();
  newer.mutable_format()->set_major(2);
  newer.mutable_format()->set_minor(3);
  const std::string refused = DecodeError(planio::EncodeBinary(newer));
  CHECK_THAT(refused, Catch::Contains("plan format 2.3 is newer than this hyperplan reads (1.x)"));
  CHECK(DecodeError(planio::EncodePlan(newer, planio::PlanEncoding::kJson)) == refused);

  // A newer major may change what the other fields mean: the header is read on its own,
  // so even a body that no longer parses under this schema is refused for its version.
  pb::PlanHeader header;
  header.mutable_format()->set_schema("hyperplan.plan");
  header.mutable_format()->set_major(2);
  // Field 14 (steps), length 1, holding 0xff: not a Step, but a well-formed unknown field.
  const std::string body = std::string("\x72\x01\xff", 3);
  CHECK_THAT(DecodeError(planio::EncodeBinary(header) + body),
             Catch::Contains("newer than this hyperplan reads"));
  CHECK_THAT(DecodeError(R"({"format": {"schema": "hyperplan.plan", "major": 2}, "steps": "x"})"),
             Catch::Contains("newer than this hyperplan reads"));
  header.mutable_format()->set_major(1);
  CHECK_THAT(DecodeError(planio::EncodeBinary(header) + body), Catch::Contains("corrupt"));

  // A newer minor adds fields this reader does not know; it ignores them.
  pb::Plan minor = ChainFixture().Message();
  minor.mutable_format()->set_minor(7);
  std::string binary = planio::EncodeBinary(minor);
  binary += std::string("\xa8\x06\x2a", 3);  // field 101 (varint) = 42
  CHECK(DecodeError(binary).empty());
  std::string json = planio::EncodePlan(minor, planio::PlanEncoding::kJson);
  json.insert(1, "\"field_from_the_future\": 42, ");
  CHECK(DecodeError(json).empty());
}

TEST_CASE("plan file: the encoding follows the extension") {
  CHECK(planio::EncodingForPath("out/plan.pb", "-o") == planio::PlanEncoding::kBinary);
  CHECK(planio::EncodingForPath("plan.json", "-o") == planio::PlanEncoding::kJson);
  try {
    planio::EncodingForPath("plan.yaml", "-o");
    FAIL("no error");
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::kUsage);
    CHECK_THAT(error.what(), Catch::Contains("-o plan.yaml"));
  }
}

TEST_CASE("plan file: files are read whole, and a missing one is an input error") {
  const auto path = std::filesystem::temp_directory_path() / "hyperplan-planio-read.json";
  const pb::Plan plan = ChainFixture().Message();
  std::ofstream(path, std::ios::binary) << planio::EncodePlan(plan, planio::PlanEncoding::kJson);
  CHECK(planio::ReadPlanFile(path.string()).steps_size() == plan.steps_size());
  std::filesystem::remove(path);
  try {
    planio::ReadPlanFile(path.string());
    FAIL("no error");
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::kInputFile);
  }
}
