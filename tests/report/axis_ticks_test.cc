// Round axis ticks (src/report/axis_ticks.h).
#include "report/axis_ticks.h"

#include <catch2/catch.hpp>

using namespace hyperplan::report;

namespace {

std::vector<std::string> Labels(const Axis& axis) {
  std::vector<std::string> labels;
  for (const AxisTick& tick : axis.ticks) labels.push_back(tick.label);
  return labels;
}

std::vector<int64_t> Values(const Axis& axis) {
  std::vector<int64_t> values;
  for (const AxisTick& tick : axis.ticks) values.push_back(tick.value);
  return values;
}

}  // namespace

TEST_CASE("trailing zeros are dropped from quantity labels") {
  CHECK(TrimTrailingZeros("1.50 GiB") == "1.5 GiB");
  CHECK(TrimTrailingZeros("2.00 ms") == "2 ms");
  CHECK(TrimTrailingZeros("10.0 GiB") == "10 GiB");
  CHECK(TrimTrailingZeros("512 B") == "512 B");
  CHECK(TrimTrailingZeros("100 us") == "100 us");
  CHECK(TrimTrailingZeros("1.25 MiB") == "1.25 MiB");
}

TEST_CASE("a time axis steps by 1, 2 or 5 x 10^k ns and ends at the data") {
  // 1 ms in at most 10 intervals: 100 us steps (1e6 / 1e5 = 10).
  const Axis ms = TimeAxis(1'000'000, 10);
  CHECK(ms.top == 1'000'000);
  CHECK(Values(ms).size() == 11);
  CHECK(Labels(ms).front() == "0");
  CHECK(Labels(ms)[1] == "100 us");
  CHECK(Labels(ms).back() == "1 ms");
  // 2500 ns: 200 ns needs 13 intervals, 500 ns needs 5.
  CHECK(Values(TimeAxis(2500, 10)) == std::vector<int64_t>{0, 500, 1000, 1500, 2000, 2500});
  CHECK(Labels(TimeAxis(2500, 10)) ==
        std::vector<std::string>{"0", "500 ns", "1 us", "1.5 us", "2 us", "2.5 us"});
  // 2300 ns: the same step; the axis still ends at 2300, the last tick at 2000.
  const Axis odd = TimeAxis(2300, 10);
  CHECK(odd.top == 2300);
  CHECK(Values(odd) == std::vector<int64_t>{0, 500, 1000, 1500, 2000});
  CHECK(TimeAxis(0, 10).top == 1);  // an empty run still has an axis
}

TEST_CASE("a byte axis steps by a power of two, so labels stay round in binary units") {
  // 5000 B in at most 5 intervals: 512 B needs 10, 1 KiB needs ceil(4.88) = 5.
  const Axis small = ByteAxis(5000, 5);
  CHECK(small.top == 5 * 1024);
  CHECK(Labels(small) ==
        std::vector<std::string>{"0", "1 KiB", "2 KiB", "3 KiB", "4 KiB", "5 KiB"});
  // 3 GiB: 1 GiB steps (3 intervals); 512 MiB would need 6.
  const int64_t gib = int64_t{1} << 30;
  CHECK(Values(ByteAxis(3 * gib, 5)) == std::vector<int64_t>{0, gib, 2 * gib, 3 * gib});
  // 1.1 MiB = 1'153'434 B: 128 KiB needs 9 intervals, 256 KiB needs ceil(4.4) = 5.
  CHECK(Labels(ByteAxis(1'153'434, 5)) ==
        std::vector<std::string>{"0", "256 KiB", "512 KiB", "768 KiB", "1 MiB", "1.25 MiB"});
  CHECK(ByteAxis(0, 5).top == 1);
}

TEST_CASE("a zoomed byte axis starts at a round value near the data, not at zero") {
  // Span 1000 - 600 = 400 bytes over 5 intervals: the power-of-two step is 128 (80 would
  // do; 64 needs 7 intervals). Floor 512 (the last multiple of 128 at or below 600), top
  // 1024 (the first at or above 1000).
  const Axis axis = ByteAxisFrom(600, 1000, 5);
  CHECK(axis.floor == 512);
  CHECK(axis.top == 1024);
  CHECK(Values(axis) == std::vector<int64_t>{512, 640, 768, 896, 1024});
  CHECK(Labels(axis).front() == "512 B");
  // Data near zero floors at zero, as ByteAxis does.
  CHECK(ByteAxisFrom(10, 1000, 5).floor == 0);
}
