// Dim ranges for `fit` (see fit_range.h).
#include "fit_range.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <utility>

namespace hyperplan::cli {
namespace {

bool Fail(std::string& problem, std::string message) {
  problem = std::move(message);
  return false;
}

// "NAME=REST" split; `rest` empty when there is no '='. False on an empty name.
bool SplitName(std::string_view text, std::string& name, std::string_view& rest,
               std::string& problem) {
  const size_t equals = text.find('=');
  name = std::string(text.substr(0, equals));
  rest = equals == std::string_view::npos ? std::string_view() : text.substr(equals + 1);
  if (name.empty()) return Fail(problem, fmt::format("'{}' names no dim", text));
  if (equals != std::string_view::npos && rest.empty()) {
    return Fail(problem, fmt::format("'{}' has nothing after '='", text));
  }
  return true;
}

// "A..B" -> both values.
bool ParseInterval(std::string_view text, int64_t& low, int64_t& high, std::string& problem) {
  const size_t dots = text.find("..");
  if (dots == std::string_view::npos) {
    return Fail(problem, fmt::format("expected FROM..TO, got '{}'", text));
  }
  const std::optional<int64_t> from = ParseDimValue(text.substr(0, dots), problem);
  if (!from) return false;
  const std::optional<int64_t> to = ParseDimValue(text.substr(dots + 2), problem);
  if (!to) return false;
  if (*from > *to) {
    return Fail(problem, fmt::format("'{}' runs backwards ({} > {})", text, *from, *to));
  }
  low = *from;
  high = *to;
  return true;
}

}  // namespace

std::optional<int64_t> ParseDimValue(std::string_view text, std::string& problem) {
  int shift = 0;
  std::string_view digits = text;
  if (!digits.empty()) {
    switch (digits.back()) {
      case 'k':
      case 'K':
        shift = 10;
        break;
      case 'M':
        shift = 20;
        break;
      case 'G':
        shift = 30;
        break;
      default:
        break;
    }
    if (shift > 0) digits.remove_suffix(1);
  }
  int64_t value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || error != std::errc() || end != digits.data() + digits.size() || value < 0 ||
      value > (INT64_MAX >> shift)) {
    problem = fmt::format(
        "'{}' is not a dim value (a whole number, optionally with k = 1024, M or G: 4k, 128k)",
        text);
    return std::nullopt;
  }
  return value << shift;
}

std::optional<GrowRange> ParseGrowRange(std::string_view text, std::string& problem) {
  GrowRange range;
  std::string_view rest;
  if (!SplitName(text, range.dim, rest, problem)) return std::nullopt;
  if (rest.empty()) return range;
  if (!ParseInterval(rest, range.min, range.max, problem)) return std::nullopt;
  return range;
}

std::optional<SweepRange> ParseSweepRange(std::string_view text, std::string& problem) {
  SweepRange range;
  std::string_view rest;
  if (!SplitName(text, range.dim, rest, problem)) return std::nullopt;
  if (rest.empty()) {
    problem = fmt::format("'{}' needs its values: NAME=FROM..TO[:STEP], e.g. {}=4k..128k", text,
                          range.dim);
    return std::nullopt;
  }
  const size_t colon = rest.find(':');
  if (colon != std::string_view::npos) {
    const std::optional<int64_t> step = ParseDimValue(rest.substr(colon + 1), problem);
    if (!step) return std::nullopt;
    if (*step == 0) {
      problem = fmt::format("'{}': the step must be at least 1", text);
      return std::nullopt;
    }
    range.step = *step;
    rest = rest.substr(0, colon);
  }
  if (!ParseInterval(rest, range.from, range.to, problem)) return std::nullopt;
  if (range.step == 0 && range.from == 0 && range.to > 0) {
    problem =
        fmt::format("'{}': doubling cannot start at 0; give a step (:STEP) or start at 1", text);
    return std::nullopt;
  }
  const size_t rows = range.Values().size();
  if (rows > kMaxSweepRows) {
    problem =
        fmt::format("'{}' is {} rows; at most {} (use a larger step)", text, rows, kMaxSweepRows);
    return std::nullopt;
  }
  return range;
}

std::vector<int64_t> SweepRange::Values() const {
  std::vector<int64_t> values;
  for (int64_t value = from; value < to && values.size() <= kMaxSweepRows;) {
    values.push_back(value);
    int64_t next = 0;
    const bool overflow = step > 0 ? __builtin_add_overflow(value, step, &next)
                                   : __builtin_mul_overflow(value, 2, &next);
    if (overflow || next > to) break;
    value = next;
  }
  values.push_back(to);
  return values;
}

}  // namespace hyperplan::cli
