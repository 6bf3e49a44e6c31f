// Scalar values: strings, booleans, integers, quantities and fixed-point fractions
// (see yaml_fields.h). Numbers go through units.h, so they are exact and never rounded.
#include <fmt/format.h>

#include <array>
#include <stdexcept>

#include "profile/yaml_fields.h"

namespace hyperplan::profile {
namespace {

// yaml-cpp tags a quoted scalar "!" and a plain one "?": "true" in quotes is a string.
bool IsQuoted(const YAML::Node& node) { return node.Tag() == "!"; }

// What a quantity field expects, by Quantity (kBytes, kBytesPerSecond, kDuration,
// kFlopsPerSecond).
constexpr std::array<std::string_view, 4> kQuantityExpected = {
    "a byte count such as 80GiB",
    "a bandwidth such as 35GB/s",
    "a duration such as 2us",
    "a rate such as 989TFLOPS",
};

std::string_view QuantityExample(Quantity quantity) {
  const auto index = static_cast<size_t>(quantity);
  return index < kQuantityExpected.size() ? kQuantityExpected[index] : "a quantity";
}

// Reports a non-scalar as "expected <what>, found <kind>"; returns whether it was a scalar.
bool ExpectScalar(const Field& field, std::string_view what, Diagnostics& diagnostics) {
  if (field.value.IsScalar()) return true;
  ReportWrongKind(field, what, diagnostics);
  return false;
}

}  // namespace

std::optional<std::string> ReadString(const Field& field, Diagnostics& diagnostics) {
  if (!ExpectScalar(field, "a string", diagnostics)) return std::nullopt;
  return field.value.Scalar();
}

std::optional<bool> ReadBool(const Field& field, Diagnostics& diagnostics) {
  if (!ExpectScalar(field, "true or false", diagnostics)) return std::nullopt;
  static constexpr std::array<std::string_view, 3> kTrue = {"true", "True", "TRUE"};
  static constexpr std::array<std::string_view, 3> kFalse = {"false", "False", "FALSE"};
  const std::string& text = field.value.Scalar();
  if (!IsQuoted(field.value)) {
    for (std::string_view spelling : kTrue) {
      if (text == spelling) return true;
    }
    for (std::string_view spelling : kFalse) {
      if (text == spelling) return false;
    }
  }
  diagnostics.Report(field.mark(),
                     field.Blame(fmt::format("expected true or false, found '{}'{}", text,
                                             IsQuoted(field.value) ? " (quoted)" : "")));
  return std::nullopt;
}

std::optional<int64_t> ReadInteger(const Field& field, int64_t min, int64_t max,
                                   Diagnostics& diagnostics) {
  if (!ExpectScalar(field, "a whole number", diagnostics)) return std::nullopt;
  const std::string& text = field.value.Scalar();
  if (IsQuoted(field.value)) {
    diagnostics.Report(field.mark(), field.Blame(fmt::format(
                                         "expected a whole number, found the string '{}'", text)));
    return std::nullopt;
  }
  int64_t value = 0;
  try {
    value = ParseFixedPoint(text, 0);
  } catch (const std::invalid_argument& error) {
    diagnostics.Report(field.mark(), field.Blame(error.what()));
    return std::nullopt;
  }
  if (value < min || value > max) {
    diagnostics.Report(
        field.mark(),
        field.Blame(fmt::format("{} is out of range; expected {} to {}", value, min, max)));
    return std::nullopt;
  }
  return value;
}

std::optional<int64_t> ReadQuantity(const Field& field, Quantity quantity, Sign sign,
                                    Diagnostics& diagnostics) {
  if (!ExpectScalar(field, QuantityExample(quantity), diagnostics)) return std::nullopt;
  int64_t value = 0;
  try {
    value = ParseQuantity(field.value.Scalar(), quantity);
  } catch (const std::invalid_argument& error) {
    diagnostics.Report(field.mark(), field.Blame(error.what()));
    return std::nullopt;
  }
  if (sign == Sign::kPositive && value == 0) {
    diagnostics.Report(field.mark(), field.Blame(fmt::format("'{}': must be greater than 0",
                                                             field.value.Scalar())));
    return std::nullopt;
  }
  return value;
}

std::optional<int64_t> ReadFixedPoint(const Field& field, int fraction_digits,
                                      Diagnostics& diagnostics) {
  if (!ExpectScalar(field, "a decimal number such as 0.7", diagnostics)) return std::nullopt;
  const std::string& text = field.value.Scalar();
  if (IsQuoted(field.value)) {
    diagnostics.Report(
        field.mark(),
        field.Blame(fmt::format("expected a decimal number, found the string '{}'", text)));
    return std::nullopt;
  }
  try {
    return ParseFixedPoint(text, fraction_digits);
  } catch (const std::invalid_argument& error) {
    diagnostics.Report(field.mark(), field.Blame(error.what()));
    return std::nullopt;
  }
}

}  // namespace hyperplan::profile
