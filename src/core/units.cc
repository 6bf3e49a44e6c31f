// Units: exact decimal parsing and deterministic printing of quantities (see units.h).
//
// Every unit is 2^a * 10^b base units (GiB = 2^30, GB = 10^9, ms = 10^6 ns), and a number is
// m * 10^e with m an integer of at most 36 digits. The value m * 2^a * 10^(b+e) is formed in
// __int128 by first cancelling the negative power of ten against m's factors of 5 and 2, so
// no intermediate ever exceeds m and "0.5KiB" is exactly 512 while "1.5B" is an error instead
// of a rounding. Printing divides integers with round-half-up. Cost: linear in the text.
// Limits: no signs, no thousands separators, no exponent beyond +-10000.
#include "hyperplan/units.h"

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>

namespace hyperplan {
namespace {

__extension__ using Int128 = __int128;

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr size_t kMaxSignificantDigits = 36;  // 10^36 < 2^127: m always fits in Int128
constexpr int64_t kExponentClamp = 10'000;    // far beyond any value that fits in int64

struct UnitScale {
  std::string_view name;
  int pow2;
  int pow10;
};

constexpr std::array<UnitScale, 12> kByteUnits = {{
    {"B", 0, 0},
    {"kB", 0, 3},
    {"KB", 0, 3},
    {"MB", 0, 6},
    {"GB", 0, 9},
    {"TB", 0, 12},
    {"PB", 0, 15},
    {"KiB", 10, 0},
    {"MiB", 20, 0},
    {"GiB", 30, 0},
    {"TiB", 40, 0},
    {"PiB", 50, 0},
}};

// "µs" is accepted in both Unicode spellings (micro sign U+00B5, Greek mu U+03BC).
constexpr std::array<UnitScale, 6> kDurationUnits = {{
    {"ns", 0, 0},
    {"us", 0, 3},
    {"\xC2\xB5s", 0, 3},
    {"\xCE\xBCs", 0, 3},
    {"ms", 0, 6},
    {"s", 0, 9},
}};

constexpr std::array<UnitScale, 7> kFlopsPrefixes = {{
    {"", 0, 0},
    {"k", 0, 3},
    {"K", 0, 3},
    {"M", 0, 6},
    {"G", 0, 9},
    {"T", 0, 12},
    {"P", 0, 15},
}};

// How messages speak of each Quantity, indexed by it (one table, as graph.cc names ValueClass).
struct QuantityWords {
  std::string_view noun;       // "a byte count"
  std::string_view example;    // "80GiB or 128GB"
  std::string_view units;      // the units it accepts
  std::string_view base_unit;  // what a bare number counts
};

constexpr std::array<QuantityWords, 4> kQuantityWords = {{
    {"a byte count", "80GiB or 128GB", "B, kB, KB, MB, GB, TB, PB, KiB, MiB, GiB, TiB, PiB",
     "bytes"},
    {"a bandwidth", "35GB/s or 3.35TB/s",
     "a byte unit followed by /s, e.g. MB/s, GB/s, TB/s, GiB/s", "bytes per second"},
    {"a duration", "2us or 1.5ms", "ns, us, ms, s", "nanoseconds"},
    {"a compute rate", "989TFLOPS or 989TFLOP/s",
     "FLOPS, kFLOPS, MFLOPS, GFLOPS, TFLOPS, PFLOPS (or FLOP/s spellings)", "FLOP/s"},
}};
static_assert(static_cast<size_t>(Quantity::kFlopsPerSecond) + 1 == kQuantityWords.size());

const QuantityWords& WordsFor(Quantity quantity) {
  static constexpr QuantityWords kUnknown = {"a quantity", "", "", "base units"};
  const auto index = static_cast<size_t>(quantity);
  return index < kQuantityWords.size() ? kQuantityWords[index] : kUnknown;
}

std::string_view QuantityNoun(Quantity quantity) { return WordsFor(quantity).noun; }
std::string_view QuantityExample(Quantity quantity) { return WordsFor(quantity).example; }
std::string_view UnitList(Quantity quantity) { return WordsFor(quantity).units; }
std::string_view BaseUnitNoun(Quantity quantity) { return WordsFor(quantity).base_unit; }

[[noreturn]] void Fail(std::string_view text, std::string_view problem) {
  std::string message = "'";
  message.append(text);
  message.append("': ");
  message.append(problem);
  throw std::invalid_argument(message);
}

std::optional<UnitScale> FindIn(std::span<const UnitScale> table, std::string_view name) {
  for (const UnitScale& unit : table) {
    if (unit.name == name) return unit;
  }
  return std::nullopt;
}

// The quantity a unit spelling belongs to and its scale, or nullopt for an unknown spelling.
struct KnownUnit {
  Quantity quantity;
  UnitScale scale;
};

std::optional<KnownUnit> LookupUnit(std::string_view unit) {
  if (auto scale = FindIn(kByteUnits, unit)) return KnownUnit{Quantity::kBytes, *scale};
  if (unit.ends_with("/s")) {
    std::string_view bytes_unit = unit.substr(0, unit.size() - 2);
    if (auto scale = FindIn(kByteUnits, bytes_unit)) {
      return KnownUnit{Quantity::kBytesPerSecond, *scale};
    }
  }
  if (auto scale = FindIn(kDurationUnits, unit)) return KnownUnit{Quantity::kDuration, *scale};
  for (std::string_view flops : {std::string_view("FLOPS"), std::string_view("FLOP/s")}) {
    if (unit.ends_with(flops)) {
      std::string_view prefix = unit.substr(0, unit.size() - flops.size());
      if (auto scale = FindIn(kFlopsPrefixes, prefix)) {
        return KnownUnit{Quantity::kFlopsPerSecond, *scale};
      }
    }
  }
  return std::nullopt;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsSpace(char c) { return c == ' ' || c == '\t'; }

std::string_view Trim(std::string_view text) {
  while (!text.empty() && IsSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsSpace(text.back())) text.remove_suffix(1);
  return text;
}

// A non-negative decimal m * 10^exponent10 with no trailing zeros in m (zero is m == 0).
struct Decimal {
  Int128 mantissa = 0;
  int64_t exponent10 = 0;
};

// Reads the number at the start of `text` into `decimal`; returns the unread rest (the unit).
// `expected` completes "expected ..." in the message for text that does not start with digits.
std::string_view ReadDecimal(std::string_view text, std::string_view expected, Decimal& decimal) {
  if (!text.empty() && text.front() == '-') Fail(text, "negative values are not allowed");
  size_t pos = 0;
  std::string digits;  // integer and fraction digits together, without the point
  while (pos < text.size() && IsDigit(text[pos])) digits.push_back(text[pos++]);
  if (digits.empty()) Fail(text, "expected " + std::string(expected));
  int64_t exponent10 = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    size_t fraction_start = pos;
    while (pos < text.size() && IsDigit(text[pos])) digits.push_back(text[pos++]);
    if (pos == fraction_start) Fail(text, "expected digits after the decimal point");
    exponent10 -= static_cast<int64_t>(pos - fraction_start);
  }
  // An exponent only when a digit follows, so that no unit beginning with e/E is swallowed.
  if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
    size_t digit_pos = pos + 1;
    bool negative = false;
    if (digit_pos < text.size() && (text[digit_pos] == '+' || text[digit_pos] == '-')) {
      negative = text[digit_pos] == '-';
      ++digit_pos;
    }
    if (digit_pos < text.size() && IsDigit(text[digit_pos])) {
      int64_t exponent = 0;
      pos = digit_pos;
      while (pos < text.size() && IsDigit(text[pos])) {
        exponent = std::min(exponent * 10 + (text[pos++] - '0'), kExponentClamp);
      }
      exponent10 += negative ? -exponent : exponent;
    }
  }
  while (!digits.empty() && digits.back() == '0') {
    digits.pop_back();
    ++exponent10;
  }
  size_t first_nonzero = digits.find_first_not_of('0');
  digits.erase(0, first_nonzero == std::string::npos ? digits.size() : first_nonzero);
  if (digits.size() > kMaxSignificantDigits) Fail(text, "more than 36 significant digits");
  decimal.mantissa = 0;
  for (char digit : digits) decimal.mantissa = decimal.mantissa * 10 + (digit - '0');
  decimal.exponent10 = digits.empty() ? 0 : exponent10;
  return text.substr(pos);
}

// m * 2^pow2 * 10^pow10 exactly, or nullopt (with `fractional` set when the reason is that the
// result is not an integer rather than that it exceeds int64).
std::optional<int64_t> ScaleExactly(Decimal decimal, int pow2, int64_t pow10, bool& fractional) {
  fractional = false;
  Int128 value = decimal.mantissa;
  if (value == 0) return 0;
  int64_t twos = pow2;
  if (pow10 < 0) {
    // 10^-n = 5^-n * 2^-n: the fives must divide m; the twos may be paid by the unit's 2^a.
    for (int64_t i = 0; i < -pow10; ++i) {
      if (value % 5 != 0) {
        fractional = true;
        return std::nullopt;
      }
      value /= 5;
    }
    twos += pow10;
    pow10 = 0;
  }
  for (; twos < 0; ++twos) {
    if (value % 2 != 0) {
      fractional = true;
      return std::nullopt;
    }
    value /= 2;
  }
  // The result is at least `value`, so any step past int64 is final.
  if (value > kInt64Max) return std::nullopt;
  for (int64_t i = 0; i < pow10; ++i) {
    value *= 10;
    if (value > kInt64Max) return std::nullopt;
  }
  for (int64_t i = 0; i < twos; ++i) {
    value *= 2;
    if (value > kInt64Max) return std::nullopt;
  }
  return static_cast<int64_t>(value);
}

struct PrintUnit {
  std::string_view suffix;
  int64_t divisor;
};

constexpr std::array<PrintUnit, 6> kBytePrint = {{{"B", 1},
                                                  {"KiB", int64_t{1} << 10},
                                                  {"MiB", int64_t{1} << 20},
                                                  {"GiB", int64_t{1} << 30},
                                                  {"TiB", int64_t{1} << 40},
                                                  {"PiB", int64_t{1} << 50}}};
constexpr std::array<PrintUnit, 6> kBandwidthPrint = {{{"B/s", 1},
                                                       {"kB/s", 1'000},
                                                       {"MB/s", 1'000'000},
                                                       {"GB/s", 1'000'000'000},
                                                       {"TB/s", 1'000'000'000'000},
                                                       {"PB/s", 1'000'000'000'000'000}}};
constexpr std::array<PrintUnit, 4> kDurationPrint = {
    {{"ns", 1}, {"us", 1'000}, {"ms", 1'000'000}, {"s", 1'000'000'000}}};
constexpr std::array<PrintUnit, 6> kFlopsPrint = {{{"FLOP/s", 1},
                                                   {"kFLOP/s", 1'000},
                                                   {"MFLOP/s", 1'000'000},
                                                   {"GFLOP/s", 1'000'000'000},
                                                   {"TFLOP/s", 1'000'000'000'000},
                                                   {"PFLOP/s", 1'000'000'000'000'000}}};

Int128 RoundedQuotient(Int128 numerator, Int128 divisor) {
  return (2 * numerator + divisor) / (2 * divisor);
}

std::string PrintFixed(Int128 scaled, int decimals) {
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(scaled % 10)));
    scaled /= 10;
  } while (scaled > 0);
  while (static_cast<int>(digits.size()) <= decimals) digits.insert(digits.begin(), '0');
  if (decimals > 0) digits.insert(digits.end() - decimals, '.');
  return digits;
}

// Three significant digits in the largest unit the value reaches. Rounding can carry a value
// into the next unit (999.7 kB/s -> "1.00 MB/s"), so the unit is chosen after rounding.
std::string FormatScaled(int64_t value, std::span<const PrintUnit> units) {
  const bool negative = value < 0;
  const Int128 magnitude = negative ? -static_cast<Int128>(value) : static_cast<Int128>(value);
  size_t index = 0;
  while (index + 1 < units.size() && magnitude >= units[index + 1].divisor) ++index;
  std::string number;
  while (true) {
    const Int128 divisor = units[index].divisor;
    if (index == 0) {
      number = PrintFixed(magnitude, 0);
      break;
    }
    const Int128 hundredths = RoundedQuotient(magnitude * 100, divisor);
    if (hundredths < 1000) {
      number = PrintFixed(hundredths, 2);
      break;
    }
    const Int128 tenths = RoundedQuotient(magnitude * 10, divisor);
    if (tenths < 1000) {
      number = PrintFixed(tenths, 1);
      break;
    }
    const Int128 whole = RoundedQuotient(magnitude, divisor);
    const bool carries = index + 1 < units.size() && whole * divisor >= units[index + 1].divisor;
    if (!carries) {
      number = PrintFixed(whole, 0);
      break;
    }
    ++index;
  }
  std::string text = negative ? "-" : "";
  text += number;
  text += ' ';
  text += units[index].suffix;
  return text;
}

}  // namespace

int64_t ParseQuantity(std::string_view text, Quantity quantity, bool allow_bare_number) {
  const std::string_view trimmed = Trim(text);
  const std::string expected =
      std::string(QuantityNoun(quantity)) + " such as " + std::string(QuantityExample(quantity));
  if (trimmed.empty()) Fail(text, "empty; expected " + expected);
  Decimal decimal;
  const std::string_view unit = Trim(ReadDecimal(trimmed, expected, decimal));
  UnitScale scale{"", 0, 0};
  if (unit.empty()) {
    if (decimal.mantissa != 0 && !allow_bare_number) {
      Fail(trimmed, "missing unit; expected " + expected);
    }
  } else {
    const std::optional<KnownUnit> known = LookupUnit(unit);
    if (!known) {
      Fail(trimmed, "unknown unit '" + std::string(unit) + "'; expected one of " +
                        std::string(UnitList(quantity)));
    }
    if (known->quantity != quantity) {
      Fail(trimmed, "'" + std::string(unit) + "' measures " +
                        std::string(QuantityNoun(known->quantity)) + ", but " +
                        std::string(QuantityNoun(quantity)) + " is expected, such as " +
                        std::string(QuantityExample(quantity)));
    }
    scale = known->scale;
  }
  bool fractional = false;
  const std::optional<int64_t> value =
      ScaleExactly(decimal, scale.pow2, decimal.exponent10 + scale.pow10, fractional);
  if (!value) {
    if (fractional) {
      Fail(trimmed, "not a whole number of " + std::string(BaseUnitNoun(quantity)));
    }
    Fail(trimmed, "out of range (more than " + std::to_string(kInt64Max) + " " +
                      std::string(BaseUnitNoun(quantity)) + ")");
  }
  return *value;
}

int64_t ParseFixedPoint(std::string_view text, int fraction_digits) {
  const std::string_view trimmed = Trim(text);
  if (trimmed.empty()) Fail(text, "empty; expected a decimal number such as 0.7");
  Decimal decimal;
  const std::string_view rest = ReadDecimal(trimmed, "a decimal number such as 0.7", decimal);
  if (!rest.empty()) {
    Fail(trimmed, "expected a plain decimal number such as 0.7, found '" + std::string(rest) + "'");
  }
  bool fractional = false;
  const std::optional<int64_t> value =
      ScaleExactly(decimal, 0, decimal.exponent10 + fraction_digits, fractional);
  if (!value) {
    if (fractional) {
      Fail(trimmed, fraction_digits == 0
                        ? std::string("not a whole number")
                        : "more than " + std::to_string(fraction_digits) + " decimal places");
    }
    Fail(trimmed, "out of range");
  }
  return *value;
}

std::string FormatBytes(int64_t bytes) { return FormatScaled(bytes, kBytePrint); }

std::string FormatBandwidth(int64_t bytes_per_s) {
  return FormatScaled(bytes_per_s, kBandwidthPrint);
}

std::string FormatDuration(int64_t ns) { return FormatScaled(ns, kDurationPrint); }

std::string FormatFlopsPerSecond(int64_t flops_per_s) {
  return FormatScaled(flops_per_s, kFlopsPrint);
}

}  // namespace hyperplan
