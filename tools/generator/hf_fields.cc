#include "hf_fields.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
#include <utility>

namespace hyperplan::gen {

HfFields::HfFields(const nlohmann::json& object, std::string file, std::string path)
    : object_(&object), file_(std::move(file)), path_(std::move(path)) {}

std::invalid_argument HfFields::Problem(const char* key, const std::string& problem) const {
  const std::string field = path_.empty() ? std::string(key) : path_ + "." + key;
  return std::invalid_argument(fmt::format("{}: field '{}': {}", file_, field, problem));
}

std::invalid_argument HfFields::WrongType(const char* key, const char* expected) const {
  const nlohmann::json& value = *Find(key);
  std::string shown = value.dump();
  if (shown.size() > 40) shown = shown.substr(0, 37) + "...";
  return Problem(key, fmt::format("expected {}, found {} {}", expected, value.type_name(), shown));
}

const nlohmann::json* HfFields::Find(const char* key) const {
  const auto it = object_->find(key);
  if (it == object_->end() || it->is_null()) return nullptr;
  return &*it;
}

const nlohmann::json* HfFields::Require(const char* key) const {
  const nlohmann::json* value = Find(key);
  if (value == nullptr) throw Problem(key, "missing");
  return value;
}

std::optional<int64_t> HfFields::OptionalInt(const char* key) const {
  const nlohmann::json* value = Find(key);
  if (value == nullptr) return std::nullopt;
  int64_t result = 0;
  if (value->is_number_integer()) {
    result = value->get<int64_t>();
  } else if (value->is_number_float() && std::floor(value->get<double>()) == value->get<double>() &&
             std::fabs(value->get<double>()) < 9.0e15) {
    result = static_cast<int64_t>(value->get<double>());  // 4096.0 is 4096
  } else {
    throw WrongType(key, "an integer");
  }
  if (result < 0) throw Problem(key, fmt::format("must not be negative, found {}", result));
  return result;
}

int64_t HfFields::Int(const char* key) const {
  Require(key);
  const int64_t value = *OptionalInt(key);
  if (value < 1) throw Problem(key, fmt::format("must be at least 1, found {}", value));
  return value;
}

std::optional<std::vector<int64_t>> HfFields::OptionalPositiveInts(const char* key) const {
  return OptionalIntsAtLeast(key, 1);
}

std::optional<std::vector<int64_t>> HfFields::OptionalIntsAtLeast(const char* key,
                                                                  int64_t min) const {
  const nlohmann::json* value = Find(key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_array()) throw WrongType(key, "an array of integers");
  std::vector<int64_t> result;
  for (const nlohmann::json& item : *value) {
    if (!item.is_number_integer() || item.get<int64_t>() < min)
      throw Problem(key, fmt::format("expected integers >= {}, found {}", min, item.dump()));
    result.push_back(item.get<int64_t>());
  }
  return result;
}

std::optional<std::vector<std::string>> HfFields::OptionalStrings(const char* key) const {
  const nlohmann::json* value = Find(key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_array()) throw WrongType(key, "an array of strings");
  std::vector<std::string> result;
  for (const nlohmann::json& item : *value) {
    if (!item.is_string())
      throw Problem(key, fmt::format("expected strings, found {}", item.dump()));
    result.push_back(item.get<std::string>());
  }
  return result;
}

std::optional<double> HfFields::OptionalNumber(const char* key) const {
  const nlohmann::json* value = Find(key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_number()) throw WrongType(key, "a number");
  return value->get<double>();
}

double HfFields::Number(const char* key) const {
  Require(key);
  return *OptionalNumber(key);
}

std::optional<std::string> HfFields::OptionalString(const char* key) const {
  const nlohmann::json* value = Find(key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_string()) throw WrongType(key, "a string");
  return value->get<std::string>();
}

std::string HfFields::String(const char* key) const {
  Require(key);
  return *OptionalString(key);
}

bool HfFields::Bool(const char* key, bool absent_value) const {
  const nlohmann::json* value = Find(key);
  if (value == nullptr) return absent_value;
  if (!value->is_boolean()) throw WrongType(key, "true or false");
  return value->get<bool>();
}

std::optional<HfFields> HfFields::Object(const char* key) const {
  const nlohmann::json* value = Find(key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_object()) throw WrongType(key, "an object");
  return HfFields(*value, file_, path_.empty() ? std::string(key) : path_ + "." + key);
}

}  // namespace hyperplan::gen
