// Test support: JSON read back through nlohmann_json, a reader independent of the writer
// (src/report/json_writer.h), and strict: nlohmann rejects what RFC 8259 does (trailing
// commas, leading zeros, bad escapes, raw control characters and invalid UTF-8 in strings,
// lone surrogate escapes, anything after the root value); ParseJson adds the one check it
// lacks, duplicate keys. A number's text is nlohmann's shortest round-trip spelling of it, so
// MicrosecondsTextToNs reads "1234.567" microseconds back as exactly 1234567 ns.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace hyperplan::testing {

// The document, or std::runtime_error / nlohmann::json::parse_error naming what is wrong.
inline nlohmann::json ParseJson(const std::string& text) {
  std::vector<std::set<std::string>> keys_per_object;  // the objects open at this point
  using Event = nlohmann::json::parse_event_t;
  return nlohmann::json::parse(text, [&](int /*depth*/, Event event, nlohmann::json& parsed) {
    if (event == Event::object_start) keys_per_object.emplace_back();
    if (event == Event::object_end) keys_per_object.pop_back();
    if (event == Event::key && !keys_per_object.back().insert(parsed.get<std::string>()).second) {
      throw std::runtime_error("json: duplicate key '" + parsed.get<std::string>() + "'");
    }
    return true;
  });
}

// A number as the writer spelled it (shortest text that reads back as the same value).
inline std::string NumberText(const nlohmann::json& number) {
  if (!number.is_number()) throw std::runtime_error("json: not a number: " + number.dump());
  return number.dump();
}

// "1234.567" (microseconds, at most three decimals) -> 1234567 ns, exactly.
inline int64_t MicrosecondsTextToNs(const std::string& number) {
  if (number.find_first_of("eE-") != std::string::npos) {
    throw std::runtime_error("unexpected number form: " + number);
  }
  const size_t dot = number.find('.');
  std::string whole = number.substr(0, dot);
  std::string fraction = dot == std::string::npos ? "" : number.substr(dot + 1);
  if (fraction.size() > 3) throw std::runtime_error("finer than 1 ns: " + number);
  fraction.append(3 - fraction.size(), '0');
  return std::stoll(whole) * 1000 + std::stoll(fraction);
}

// The microseconds number `number` in ns, exactly.
inline int64_t MicrosecondsToNs(const nlohmann::json& number) {
  return MicrosecondsTextToNs(NumberText(number));
}

}  // namespace hyperplan::testing
