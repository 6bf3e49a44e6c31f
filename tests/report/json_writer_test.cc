// The streaming JSON writer (src/report/json_writer.h), read back by nlohmann_json (strictly:
// report/json_reader.h).
#include "report/json_writer.h"

#include <catch2/catch.hpp>
#include <sstream>

#include "report/json_reader.h"

using namespace hyperplan::report;
using hyperplan::testing::ParseJson;

TEST_CASE("the writer nests objects and arrays with commas in the right places") {
  std::ostringstream out;
  JsonWriter json(out);
  json.BeginObject();
  json.Key("a");
  json.BeginArray();
  json.Int(1);
  json.Int(-2);
  json.Bool(true);
  json.BeginArray();
  json.EndArray();
  json.EndArray();
  json.Key("b");
  json.BeginObject();
  json.Key("c");
  json.String("x");
  json.EndObject();
  json.EndObject();
  CHECK(json.complete());
  CHECK(out.str() == R"({"a":[1,-2,true,[]],"b":{"c":"x"}})");
}

TEST_CASE("Newline puts the next array item or key on its own line") {
  std::ostringstream out;
  JsonWriter json(out);
  json.BeginArray();
  for (int i = 0; i < 3; ++i) {
    json.Newline();
    json.Int(i);
  }
  json.Newline();
  json.EndArray();
  CHECK(out.str() == "[\n0,\n1,\n2\n]");
}

TEST_CASE("strings escape quotes, backslashes and every control character") {
  CHECK(JsonString("q\"b\\n") == R"("q\"b\\n")");
  CHECK(JsonString("\n\t\r\b\f") == R"("\n\t\r\b\f")");
  CHECK(JsonString(std::string("\x01\x1f\0", 3)) == R"("\u0001\u001f\u0000")");
  CHECK(JsonString("\xC3\xA9") == "\"\xC3\xA9\"");  // é passes through
  CHECK(JsonString("\xC3") == R"("\ufffd")");       // cut-off sequence
  CHECK(JsonString("\xFF\xFE") == R"("\ufffd\ufffd")");
  CHECK(JsonString("/") == R"("/")");
}

TEST_CASE("every byte string comes out as valid JSON") {
  std::string all_bytes;
  for (int b = 0; b < 256; ++b) all_bytes += static_cast<char>(b);
  std::ostringstream out;
  JsonWriter json(out);
  json.BeginObject();
  json.Key(all_bytes);
  json.String(all_bytes);
  json.EndObject();
  const nlohmann::json parsed = ParseJson(out.str());
  REQUIRE(parsed.size() == 1);
  // ASCII survives unchanged; every byte >= 0x80 here is invalid alone and became U+FFFD.
  CHECK(parsed.begin().value().get<std::string>().substr(0, 128) == all_bytes.substr(0, 128));
}

TEST_CASE("decimals are exact with trailing zeros dropped") {
  auto decimal = [](int64_t value, int digits) {
    std::ostringstream out;
    JsonWriter json(out);
    json.Decimal(value, digits);
    return out.str();
  };
  CHECK(decimal(1500, 3) == "1.5");
  CHECK(decimal(2000, 3) == "2");
  CHECK(decimal(7, 3) == "0.007");
  CHECK(decimal(-5, 3) == "-0.005");
  CHECK(decimal(0, 3) == "0");
  CHECK(decimal(123'456'789'012, 3) == "123456789.012");
  CHECK(decimal(42, 0) == "42");
}

TEST_CASE("misuse throws instead of writing invalid JSON") {
  std::ostringstream out;
  JsonWriter json(out);
  CHECK_THROWS_AS(json.Key("k"), std::logic_error);
  json.BeginObject();
  CHECK_THROWS_AS(json.Int(1), std::logic_error);  // a key is due
  CHECK_THROWS_AS(json.EndArray(), std::logic_error);
  json.Key("k");
  CHECK_THROWS_AS(json.EndObject(), std::logic_error);  // the value is due
  json.Int(1);
  json.EndObject();
  CHECK_THROWS_AS(json.Int(2), std::logic_error);  // a second root
}
