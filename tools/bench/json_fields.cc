// Flat JSON field lookup (see json_fields.h).
#include "json_fields.h"

#include <regex>

namespace hyperplan::bench {

int64_t JsonInteger(const std::string& json, const std::string& key) {
  const std::regex pattern("\"" + key + "\": ?\"?(-?\\d+)");
  std::smatch match;
  return std::regex_search(json, match, pattern) ? std::stoll(match[1]) : -1;
}

std::string JsonString(const std::string& json, const std::string& key) {
  const std::regex pattern("\"" + key + "\": ?\"([^\"]*)\"");
  std::smatch match;
  return std::regex_search(json, match, pattern) ? std::string(match[1]) : std::string();
}

}  // namespace hyperplan::bench
