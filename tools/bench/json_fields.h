// Reads a field from one line of flat JSON that hyperplan-bench's children print (plan-once)
// or hyperplan prints (--summary-json). Cost: one RE2 search, linear in the line. Limits: flat
// objects only; the first match wins.
#pragma once

#include <cstdint>
#include <string>

namespace hyperplan::bench {

// The integer value of "key" (quoted or not), or -1.
int64_t JsonInteger(const std::string& json, const std::string& key);
// The string value of "key", or "".
std::string JsonString(const std::string& json, const std::string& key);

}  // namespace hyperplan::bench
