// Units: exact parsing of quantities and the report formatting (units.h). Every expected value
// is worked out by hand in the comment beside it.
#include "hyperplan/units.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <stdexcept>

namespace hyperplan {
namespace {

using Catch::Matchers::Contains;

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

TEST_CASE("ParseQuantity reads byte counts with decimal and binary prefixes", "[units]") {
  // 80 * 2^30 = 80 * 1'073'741'824 = 85'899'345'920
  CHECK(ParseQuantity("80GiB", Quantity::kBytes) == 85'899'345'920);
  // 128 * 10^9
  CHECK(ParseQuantity("128GB", Quantity::kBytes) == 128'000'000'000);
  // kB and KB are both 10^3
  CHECK(ParseQuantity("4kB", Quantity::kBytes) == 4'000);
  CHECK(ParseQuantity("4KB", Quantity::kBytes) == 4'000);
  // 0.5 * 2^10 = 512: a fraction of a binary unit is exact when it lands on whole bytes
  CHECK(ParseQuantity("0.5KiB", Quantity::kBytes) == 512);
  // 3.84 * 10^12
  CHECK(ParseQuantity("3.84TB", Quantity::kBytes) == 3'840'000'000'000);
  // 8 * 2^50 = 2^53 = 9'007'199'254'740'992
  CHECK(ParseQuantity("8PiB", Quantity::kBytes) == 9'007'199'254'740'992);
  // A space between number and unit is allowed: 80 * 2^30
  CHECK(ParseQuantity("80 GiB", Quantity::kBytes) == 85'899'345'920);
}

TEST_CASE("ParseQuantity is exact where floating point would round", "[units]") {
  // 2^-50 written out in full (50 decimal places, 35 significant digits) times 2^50 bytes is
  // exactly 1 byte; a double would not even hold the mantissa.
  CHECK(ParseQuantity("0.00000000000000088817841970012523233890533447265625PiB",
                      Quantity::kBytes) == 1);
  // 3.35 is not representable in binary; exactly 3'350'000'000'000 here
  CHECK(ParseQuantity("3.35TB/s", Quantity::kBytesPerSecond) == 3'350'000'000'000);
  // 2^63 - 1 itself is in range
  CHECK(ParseQuantity("9223372036854775807B", Quantity::kBytes) == kInt64Max);
  // trailing zeros in the fraction do not count as precision: 1.50000 * 10^9
  CHECK(ParseQuantity("1.50000GB", Quantity::kBytes) == 1'500'000'000);
}

TEST_CASE("ParseQuantity reads bandwidths as a byte unit per second", "[units]") {
  CHECK(ParseQuantity("35GB/s", Quantity::kBytesPerSecond) == 35'000'000'000);
  // 392 * 10^9
  CHECK(ParseQuantity("392GB/s", Quantity::kBytesPerSecond) == 392'000'000'000);
  // 1.5 * 2^30 = 1'610'612'736
  CHECK(ParseQuantity("1.5GiB/s", Quantity::kBytesPerSecond) == 1'610'612'736);
}

TEST_CASE("ParseQuantity reads durations in nanoseconds", "[units]") {
  CHECK(ParseQuantity("2us", Quantity::kDuration) == 2'000);
  // 1.5 * 10^6 ns
  CHECK(ParseQuantity("1.5ms", Quantity::kDuration) == 1'500'000);
  CHECK(ParseQuantity("750ns", Quantity::kDuration) == 750);
  // 2.5e-1 s = 0.25 s = 250'000'000 ns
  CHECK(ParseQuantity("2.5e-1s", Quantity::kDuration) == 250'000'000);
  // 1e3 us = 10^6 ns
  CHECK(ParseQuantity("1e3us", Quantity::kDuration) == 1'000'000);
  // micro sign (U+00B5) and Greek mu (U+03BC) spellings: 3 us = 3'000 ns
  CHECK(ParseQuantity("3\xC2\xB5s", Quantity::kDuration) == 3'000);
  CHECK(ParseQuantity("3\xCE\xBCs", Quantity::kDuration) == 3'000);
}

TEST_CASE("ParseQuantity reads FLOP/s in both spellings", "[units]") {
  // 989 * 10^12
  CHECK(ParseQuantity("989TFLOPS", Quantity::kFlopsPerSecond) == 989'000'000'000'000);
  CHECK(ParseQuantity("989TFLOP/s", Quantity::kFlopsPerSecond) == 989'000'000'000'000);
  // 1.979 * 10^15
  CHECK(ParseQuantity("1.979PFLOPS", Quantity::kFlopsPerSecond) == 1'979'000'000'000'000);
  // 67 * 10^12
  CHECK(ParseQuantity("67TFLOPS", Quantity::kFlopsPerSecond) == 67'000'000'000'000);
  CHECK(ParseQuantity("5kFLOPS", Quantity::kFlopsPerSecond) == 5'000);
}

TEST_CASE("ParseQuantity: bare numbers", "[units]") {
  // zero means the same in every unit, so it needs none
  CHECK(ParseQuantity("0", Quantity::kDuration) == 0);
  CHECK(ParseQuantity("0.0", Quantity::kBytes) == 0);
  CHECK(ParseQuantity("0GB", Quantity::kBytes) == 0);
  // any other bare number is ambiguous unless the caller allows base units
  CHECK_THROWS_WITH(ParseQuantity("2", Quantity::kDuration),
                    Contains("'2': missing unit; expected a duration such as 2us"));
  CHECK(ParseQuantity("2", Quantity::kDuration, /*allow_bare_number=*/true) == 2);
  CHECK(ParseQuantity("4096", Quantity::kBytes, /*allow_bare_number=*/true) == 4'096);
}

TEST_CASE("ParseQuantity rejects unknown and wrong units", "[units]") {
  // lower-case b would be bits; it is not accepted
  CHECK_THROWS_WITH(ParseQuantity("80Gb", Quantity::kBytes),
                    Contains("'80Gb': unknown unit 'Gb'; expected one of B, kB"));
  CHECK_THROWS_WITH(ParseQuantity("80gib", Quantity::kBytes), Contains("unknown unit 'gib'"));
  CHECK_THROWS_WITH(ParseQuantity("1EB", Quantity::kBytes), Contains("unknown unit 'EB'"));
  // a known unit for another quantity says which quantity it measures
  CHECK_THROWS_WITH(ParseQuantity("35GB", Quantity::kBytesPerSecond),
                    Contains("'GB' measures a byte count, but a bandwidth is expected"));
  CHECK_THROWS_WITH(ParseQuantity("2us", Quantity::kBytes),
                    Contains("'us' measures a duration, but a byte count is expected"));
  CHECK_THROWS_WITH(ParseQuantity("1GB/s", Quantity::kFlopsPerSecond),
                    Contains("but a compute rate is expected"));
  // FLOPs (a count) is not FLOPS (a rate)
  CHECK_THROWS_WITH(ParseQuantity("10TFLOPs", Quantity::kFlopsPerSecond),
                    Contains("unknown unit 'TFLOPs'"));
}

TEST_CASE("ParseQuantity rejects negative, fractional and overflowing values", "[units]") {
  CHECK_THROWS_WITH(ParseQuantity("-5GB", Quantity::kBytes),
                    Contains("'-5GB': negative values are not allowed"));
  // 1.5 bytes and 0.5 ns are not whole base units
  CHECK_THROWS_WITH(ParseQuantity("1.5B", Quantity::kBytes),
                    Contains("'1.5B': not a whole number of bytes"));
  CHECK_THROWS_WITH(ParseQuantity("0.5ns", Quantity::kDuration),
                    Contains("not a whole number of nanoseconds"));
  // 1.0000000001 GB/s = 1'000'000'000.1 bytes/s
  CHECK_THROWS_WITH(ParseQuantity("1.0000000001GB/s", Quantity::kBytesPerSecond),
                    Contains("not a whole number of bytes per second"));
  // 2^63 is one past int64's maximum
  CHECK_THROWS_WITH(ParseQuantity("9223372036854775808B", Quantity::kBytes),
                    Contains("out of range (more than 9223372036854775807 bytes)"));
  // 8192 PiB = 2^13 * 2^50 = 2^63
  CHECK_THROWS_WITH(ParseQuantity("8192PiB", Quantity::kBytes), Contains("out of range"));
  CHECK_THROWS_WITH(ParseQuantity("1e10000s", Quantity::kDuration), Contains("out of range"));
  CHECK_THROWS_WITH(ParseQuantity("1234567890123456789012345678901234567GB", Quantity::kBytes),
                    Contains("more than 36 significant digits"));
}

TEST_CASE("ParseQuantity rejects empty and garbage text", "[units]") {
  CHECK_THROWS_AS(ParseQuantity("", Quantity::kBytes), std::invalid_argument);
  CHECK_THROWS_WITH(ParseQuantity("", Quantity::kBytes),
                    Contains("empty; expected a byte count such as 80GiB"));
  CHECK_THROWS_WITH(ParseQuantity("   ", Quantity::kDuration), Contains("empty"));
  CHECK_THROWS_WITH(ParseQuantity("GB", Quantity::kBytes),
                    Contains("'GB': expected a byte count such as 80GiB"));
  CHECK_THROWS_WITH(ParseQuantity("fast", Quantity::kBytesPerSecond),
                    Contains("expected a bandwidth such as 35GB/s"));
  CHECK_THROWS_WITH(ParseQuantity(".5GB", Quantity::kBytes), Contains("expected a byte count"));
  CHECK_THROWS_WITH(ParseQuantity("5.GB", Quantity::kBytes),
                    Contains("expected digits after the decimal point"));
  CHECK_THROWS_WITH(ParseQuantity("+5GB", Quantity::kBytes), Contains("expected a byte count"));
  CHECK_THROWS_WITH(ParseQuantity("1,000GB", Quantity::kBytes), Contains("unknown unit ',000GB'"));
}

TEST_CASE("ParseFixedPoint reads exact fractions", "[units]") {
  // 0.7 * 10^6 parts per million
  CHECK(ParseFixedPoint("0.7", 6) == 700'000);
  CHECK(ParseFixedPoint("1", 6) == 1'000'000);
  // 0.123456 * 10^6
  CHECK(ParseFixedPoint("0.123456", 6) == 123'456);
  // 1e-6 * 10^6 = 1
  CHECK(ParseFixedPoint("1e-6", 6) == 1);
  CHECK(ParseFixedPoint("3", 0) == 3);
  CHECK(ParseFixedPoint("30", 0) == 30);
  // 1e-7 needs a seventh decimal place
  CHECK_THROWS_WITH(ParseFixedPoint("0.0000001", 6), Contains("more than 6 decimal places"));
  CHECK_THROWS_WITH(ParseFixedPoint("2.5", 0), Contains("'2.5': not a whole number"));
  CHECK_THROWS_WITH(ParseFixedPoint("0.7x", 6),
                    Contains("expected a plain decimal number such as 0.7, found 'x'"));
  CHECK_THROWS_WITH(ParseFixedPoint("-0.5", 6), Contains("negative values are not allowed"));
  CHECK_THROWS_WITH(ParseFixedPoint("two", 0), Contains("expected a decimal number"));
  CHECK_THROWS_WITH(ParseFixedPoint("1e19", 0), Contains("out of range"));
}

TEST_CASE("FormatBytes uses binary prefixes and three significant digits", "[units]") {
  // 1.5 * 2^30 = 1'610'612'736
  CHECK(FormatBytes(1'610'612'736) == "1.50 GiB");
  // 80 * 2^30: two integer digits leave one decimal
  CHECK(FormatBytes(85'899'345'920) == "80.0 GiB");
  CHECK(FormatBytes(512) == "512 B");
  CHECK(FormatBytes(0) == "0 B");
  CHECK(FormatBytes(1'024) == "1.00 KiB");
  // 1000 * 1024 = 1'024'000 is 1000 KiB, still below 1 MiB (1'048'576)
  CHECK(FormatBytes(1'024'000) == "1000 KiB");
  // 1'048'575 B = 1023.999 KiB rounds to 1024 KiB, which is 1.00 MiB
  CHECK(FormatBytes(1'048'575) == "1.00 MiB");
  // (2^63 - 1) / 2^50 = 8191.99... rounds to 8192; PiB is the largest unit
  CHECK(FormatBytes(kInt64Max) == "8192 PiB");
  CHECK(FormatBytes(std::numeric_limits<int64_t>::min()) == "-8192 PiB");
}

TEST_CASE("FormatBandwidth uses decimal prefixes", "[units]") {
  CHECK(FormatBandwidth(35'000'000'000) == "35.0 GB/s");
  CHECK(FormatBandwidth(3'350'000'000'000) == "3.35 TB/s");
  CHECK(FormatBandwidth(392'000'000'000) == "392 GB/s");
  CHECK(FormatBandwidth(999) == "999 B/s");
  // 999.7 kB/s rounds to 1000 kB/s = 1.00 MB/s
  CHECK(FormatBandwidth(999'700) == "1.00 MB/s");
}

TEST_CASE("FormatDuration rounds half up", "[units]") {
  CHECK(FormatDuration(2'000) == "2.00 us");
  CHECK(FormatDuration(1'500'000) == "1.50 ms");
  CHECK(FormatDuration(999) == "999 ns");
  // 1.005 us: half up to 1.01; 1.004 us down to 1.00
  CHECK(FormatDuration(1'005) == "1.01 us");
  CHECK(FormatDuration(1'004) == "1.00 us");
  CHECK(FormatDuration(-2'500) == "-2.50 us");
  // 3600 s: seconds are the largest unit, so the integer part grows
  CHECK(FormatDuration(3'600'000'000'000) == "3600 s");
}

TEST_CASE("FormatFlopsPerSecond", "[units]") {
  CHECK(FormatFlopsPerSecond(989'000'000'000'000) == "989 TFLOP/s");
  // 1.979 PFLOP/s to three digits: 1.98
  CHECK(FormatFlopsPerSecond(1'979'000'000'000'000) == "1.98 PFLOP/s");
  CHECK(FormatFlopsPerSecond(67'000'000'000'000) == "67.0 TFLOP/s");
  CHECK(FormatFlopsPerSecond(12) == "12 FLOP/s");
}

TEST_CASE("Formatting a parsed quantity gives back the written figure", "[units]") {
  CHECK(FormatBandwidth(ParseQuantity("53GB/s", Quantity::kBytesPerSecond)) == "53.0 GB/s");
  CHECK(FormatBytes(ParseQuantity("96GiB", Quantity::kBytes)) == "96.0 GiB");
  CHECK(FormatDuration(ParseQuantity("5us", Quantity::kDuration)) == "5.00 us");
  CHECK(FormatFlopsPerSecond(ParseQuantity("752TFLOPS", Quantity::kFlopsPerSecond)) ==
        "752 TFLOP/s");
}

}  // namespace
}  // namespace hyperplan
