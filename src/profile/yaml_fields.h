// Typed reading of a YAML document for the profile loader, reporting instead of throwing.
//
// Each reader takes a Field (a node plus its path and position), returns the value or nullopt,
// and reports every problem to Diagnostics, so a caller reads on after a bad value and the
// user sees all mistakes at once. yaml-cpp is only asked for node kinds, scalars and marks;
// its conversions (as<T>) are never used, so nothing here throws on bad input.
// Cost: linear in the mapping or sequence read (key checks are quadratic in the handful of
// keys a schema section allows). Limits: YAML merge keys ("<<") are not expanded (yaml-cpp 0.7
// does not support them) and are reported as unknown keys.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hyperplan/units.h"
#include "profile/diagnostics.h"

namespace hyperplan::profile {

// A value in the document with what is needed to blame it.
struct Field {
  std::string path;     // for messages: "tiers[1].capacity"; "" for the document itself
  YAML::Node value;     // never an undefined node
  YAML::Mark key_mark;  // the key or sequence entry that introduced the value
  // Where a problem with the value is reported. yaml-cpp marks an empty value at the next
  // token (often the following line), so an empty value is blamed on its key instead.
  YAML::Mark mark() const;
  // "path: problem", or just the problem for the document itself.
  std::string Blame(std::string_view problem) const;
};

// A field inside `parent`: "parent.key" (or "key" at the top level).
std::string ChildPath(std::string_view parent, std::string_view key);

// "a mapping", "a sequence", "a scalar", "nothing": for "expected X, found Y" messages.
std::string_view DescribeKind(const YAML::Node& node);

// Reports `field` as "expected <what>, found <its kind>" (a mapping where a sequence belongs).
void ReportWrongKind(const Field& field, std::string_view what, Diagnostics& diagnostics);

// One key: value entry of a mapping.
struct Entry {
  std::string key;
  Field field;
};

// The entries of a mapping in document order, each key once. Reports a value that is not a
// mapping (nullopt), keys that are not plain scalars and repeated keys (both skipped).
std::optional<std::vector<Entry>> ReadEntries(const Field& field, Diagnostics& diagnostics);

struct KeySpec {
  std::string_view name;
  bool required;
};

// A mapping checked against a fixed schema section: unknown keys (with the nearest known key
// when one is within two edits), and missing required keys (blamed on the mapping) are
// reported on top of what ReadEntries reports.
class Mapping {
 public:
  static std::optional<Mapping> Read(const Field& field, std::span<const KeySpec> keys,
                                     Diagnostics& diagnostics);
  // The field for a known key, or nullptr when it is absent.
  const Field* Find(std::string_view key) const;

 private:
  std::vector<Entry> entries_;
};

// The items of a sequence; reports (and returns nullopt for) anything else.
std::optional<std::vector<Field>> ReadSequence(const Field& field, Diagnostics& diagnostics);

// A scalar as written (quoted or not).
std::optional<std::string> ReadString(const Field& field, Diagnostics& diagnostics);

// YAML 1.2 core booleans: true/True/TRUE, false/False/FALSE, unquoted.
std::optional<bool> ReadBool(const Field& field, Diagnostics& diagnostics);

// A whole number in [min, max], unquoted.
std::optional<int64_t> ReadInteger(const Field& field, int64_t min, int64_t max,
                                   Diagnostics& diagnostics);

enum class Sign { kNonNegative, kPositive };

// A quantity with a unit (units.h), quoted or not; kPositive also rejects zero.
std::optional<int64_t> ReadQuantity(const Field& field, Quantity quantity, Sign sign,
                                    Diagnostics& diagnostics);

// An unquoted decimal as a count of 10^-fraction_digits (units.h ParseFixedPoint).
std::optional<int64_t> ReadFixedPoint(const Field& field, int fraction_digits,
                                      Diagnostics& diagnostics);

}  // namespace hyperplan::profile
