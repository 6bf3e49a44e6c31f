// Typed reading of one JSON object of a Hugging Face config.json, where every problem becomes
// one message naming the file and the field: "config.json: field 'hidden_size': expected an
// integer, found string \"4k\"". Nested objects (rope_scaling) name their fields by path
// ("rope_scaling.factor").
// Cost: one map lookup per field. Limits: JSON null counts as absent (configs write
// "sliding_window": null for "none").
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace hyperplan::gen {

class HfFields {
 public:
  // `object` must outlive this; `path` is "" at the top level or "rope_scaling".
  HfFields(const nlohmann::json& object, std::string file, std::string path = {});

  // Required fields throw std::invalid_argument "missing field" when absent or null.
  int64_t Int(const char* key) const;  // an integer >= 1
  std::optional<int64_t> OptionalInt(const char* key) const;
  // An array of integers >= 1, or nullopt when absent or null.
  std::optional<std::vector<int64_t>> OptionalPositiveInts(const char* key) const;
  // An array of integers >= `min`, or nullopt when absent or null.
  std::optional<std::vector<int64_t>> OptionalIntsAtLeast(const char* key, int64_t min) const;
  // An array of strings, or nullopt when absent or null.
  std::optional<std::vector<std::string>> OptionalStrings(const char* key) const;
  double Number(const char* key) const;
  std::optional<double> OptionalNumber(const char* key) const;
  std::string String(const char* key) const;
  std::optional<std::string> OptionalString(const char* key) const;
  bool Bool(const char* key, bool absent_value) const;
  // Whether the key is written at all (even as null).
  bool Has(const char* key) const { return object_->contains(key); }
  // A nested object, or nullopt when absent or null.
  std::optional<HfFields> Object(const char* key) const;

  // "<file>: field '<path.key>': <problem>" as an exception to throw.
  std::invalid_argument Problem(const char* key, const std::string& problem) const;

 private:
  const nlohmann::json* Find(const char* key) const;  // nullptr when absent or null
  const nlohmann::json* Require(const char* key) const;
  std::invalid_argument WrongType(const char* key, const char* expected) const;

  const nlohmann::json* object_;
  std::string file_;
  std::string path_;
};

}  // namespace hyperplan::gen
