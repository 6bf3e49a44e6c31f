// Units: exact parsing and printing of quantities with units ("80GiB", "3.35TB/s", "2us",
// "989TFLOPS").
//
// Parsing is decimal and exact: the mantissa is read as an integer with a decimal exponent and
// scaled by the unit, so "3.35TB/s" is exactly 3'350'000'000'000 bytes/s with no floating-point
// rounding. A result that is not a whole number of base units, is negative, or overflows int64
// is an error. Cost: linear in the text. Units are case-sensitive where SI needs it
// (ms vs Ms never both valid here; "b" is not accepted for bytes).
//
// Grammar: DIGITS ["." DIGITS] [("e"|"E") ["+"|"-"] DIGITS] [spaces] UNIT. No sign, no
// thousands separators, no leading "." (write 0.5). At most 36 significant digits.
// Printing is integer arithmetic with round-half-up to three significant digits, so reports
// are byte-identical on every compiler.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace hyperplan {

enum class Quantity {
  kBytes,           // B, kB/KB, MB, GB, TB, PB (powers of 1000); KiB, MiB, GiB, TiB, PiB
  kBytesPerSecond,  // any byte unit followed by "/s", e.g. GB/s, GiB/s
  kDuration,        // ns, us (also µs), ms, s -> nanoseconds
  kFlopsPerSecond,  // FLOPS, kFLOPS/KFLOPS, MFLOPS, GFLOPS, TFLOPS, PFLOPS (also "FLOP/s")
};

// Parses `text` as `quantity`. Throws std::invalid_argument with a message that quotes the
// text and says what was expected (the caller adds the file and line). A bare number (no unit)
// is read in base units (bytes, ns, bytes/s, FLOP/s) only when `allow_bare_number` is set; a
// bare zero is always accepted, since zero means the same in every unit.
int64_t ParseQuantity(std::string_view text, Quantity quantity, bool allow_bare_number = false);

// Parses a unitless decimal ("0.7", "1", "2.5e-1") exactly as an integer count of
// 10^-fraction_digits: ParseFixedPoint("0.7", 6) == 700'000 (parts per million),
// ParseFixedPoint("3", 0) == 3. Throws std::invalid_argument when the text is not such a
// number, is negative, needs more fraction digits than given, or overflows int64.
int64_t ParseFixedPoint(std::string_view text, int fraction_digits);

// Human-readable forms for reports: "1.50 GiB", "35.0 GB/s", "2.00 us", "989 TFLOP/s".
// Three significant digits (more only when the integer part needs them, e.g. "1000 GiB");
// values below the smallest prefix print exactly ("512 B", "0 ns"); negatives get a "-".
std::string FormatBytes(int64_t bytes);                 // binary prefixes: KiB ... PiB
std::string FormatBandwidth(int64_t bytes_per_s);       // decimal prefixes: kB/s ... PB/s
std::string FormatDuration(int64_t ns);                 // ns, us, ms, s
std::string FormatFlopsPerSecond(int64_t flops_per_s);  // decimal: kFLOP/s ... PFLOP/s

}  // namespace hyperplan
