// Units: exact parsing and printing of quantities with units ("80GiB", "3.35TB/s", "2us",
// "989TFLOPS").
//
// Parsing is decimal and exact: the mantissa is read as an integer with a decimal exponent and
// scaled by the unit, so "3.35TB/s" is exactly 3'350'000'000'000 bytes/s with no floating-point
// rounding. A result that is not a whole number of base units, is negative, or overflows int64
// is an error. Cost: linear in the text. Units are case-sensitive where SI needs it
// (ms vs Ms never both valid here; "b" is not accepted for bytes).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace hyperplan {

enum class Quantity {
  kBytes,           // B, kB/KB, MB, GB, TB, PB (powers of 1000); KiB, MiB, GiB, TiB, PiB
  kBytesPerSecond,  // any byte unit followed by "/s", e.g. GB/s, GiB/s
  kDuration,        // ns, us, ms, s -> nanoseconds
  kFlopsPerSecond,  // FLOPS, KFLOPS, MFLOPS, GFLOPS, TFLOPS, PFLOPS (also "FLOP/s" spellings)
};

// Parses `text` as `quantity`. Throws std::invalid_argument with a message that says what was
// expected (the caller adds the file and line). A bare number is accepted only for kDuration
// and kBytes when `allow_bare_number` is set.
int64_t ParseQuantity(std::string_view text, Quantity quantity, bool allow_bare_number = false);

// Human-readable forms for reports: "1.50 GiB", "35.0 GB/s", "2.00 us", "989 TFLOP/s".
std::string FormatBytes(int64_t bytes);
std::string FormatBandwidth(int64_t bytes_per_s);
std::string FormatDuration(int64_t ns);
std::string FormatFlopsPerSecond(int64_t flops_per_s);

}  // namespace hyperplan
