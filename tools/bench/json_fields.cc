// Flat JSON field lookup (see json_fields.h).
#include "json_fields.h"

#include <re2/re2.h>

namespace hyperplan::bench {

int64_t JsonInteger(const std::string& json, const std::string& key) {
  const RE2 pattern("\"" + RE2::QuoteMeta(key) + "\": ?\"?(-?\\d+)");
  int64_t value = -1;
  return RE2::PartialMatch(json, pattern, &value) ? value : -1;
}

std::string JsonString(const std::string& json, const std::string& key) {
  const RE2 pattern("\"" + RE2::QuoteMeta(key) + "\": ?\"([^\"]*)\"");
  std::string value;
  return RE2::PartialMatch(json, pattern, &value) ? value : std::string();
}

}  // namespace hyperplan::bench
