// The channel schedule's searches against an independent oracle: a bitmap of busy
// nanoseconds, searched by brute force. Random reservations, releases and queries on a short
// time line; every answer must be the brute-force one. Plus the treap's own searches on a
// hand-built line of intervals.
#include "planner/busy_intervals.h"

#include <catch2/catch.hpp>
#include <optional>
#include <random>
#include <vector>

#include "planner/link_schedule.h"

using namespace hyperplan::planner;

namespace {

constexpr int64_t kLine = 160;  // the oracle's time line; past it everything is free

struct Bitmap {
  std::vector<uint8_t> busy = std::vector<uint8_t>(kLine, 0);

  bool Free(int64_t start, int64_t duration) const {
    for (int64_t t = start; t < start + duration; ++t) {
      if (t >= 0 && t < kLine && busy[t]) return false;
    }
    return true;
  }
  int64_t Earliest(int64_t lower, int64_t duration) const {
    int64_t start = lower;
    while (!Free(start, duration)) ++start;
    return start;
  }
  std::optional<int64_t> Latest(int64_t lower, int64_t deadline, int64_t duration) const {
    for (int64_t start = deadline - duration; start >= lower; --start) {
      if (Free(start, duration)) return start;
    }
    return std::nullopt;
  }
  bool AllBusy(int64_t start, int64_t end) const {
    for (int64_t t = start; t < end; ++t) {
      if (!busy[t]) return false;
    }
    return true;
  }
  void Set(int64_t start, int64_t end, uint8_t state) {
    for (int64_t t = start; t < end; ++t) busy[t] = state;
  }
};

}  // namespace

TEST_CASE("busy intervals: searches by gap length on a hand-built line") {
  BusyIntervals line;
  // [0,10) gap 5, [15,20) gap 20, [40,45) gap 2, [47,50) unbounded.
  line.Insert(40, 45);
  line.Insert(0, 10);
  line.Insert(47, 50);
  line.Insert(15, 20);
  CHECK(line.at(line.First()).start_ns == 0);
  CHECK(line.at(line.FirstWithGapFrom(0, 5)).start_ns == 0);     // its gap is exactly 5
  CHECK(line.at(line.FirstWithGapFrom(0, 6)).start_ns == 15);    // 5 is short; 20 fits
  CHECK(line.at(line.FirstWithGapFrom(16, 3)).start_ns == 47);   // 40's gap of 2 is short
  CHECK(line.at(line.LastWithGapBefore(47, 2)).start_ns == 40);  // 40 < 47, gap 2
  CHECK(line.at(line.LastWithGapBefore(47, 6)).start_ns == 15);
  CHECK(line.LastWithGapBefore(15, 6) == BusyIntervals::kNone);  // only [0,10), gap 5
  line.Erase(15);                                                // [0,10) now reaches to 40: gap 30
  CHECK(line.at(line.First()).gap_after_ns == 30);
  CHECK(line.at(line.FirstWithGapFrom(0, 30)).start_ns == 0);
  CHECK(line.at(line.FirstWithGapFrom(0, 31)).start_ns == 47);
  line.Insert(12, 38);  // gaps: [0,10) 2, [12,38) 2
  CHECK(line.at(line.First()).gap_after_ns == 2);
  CHECK(line.at(line.FirstWithGapFrom(0, 3)).start_ns == 47);
  CHECK(line.at(line.LastWithGapBefore(40, 2)).start_ns == 12);
  line.Resize(12, 20, 30);                          // [0,10) gap 10, [20,30) gap 10, [40,45) gap 2
  CHECK(line.at(line.First()).gap_after_ns == 10);  // 20 - 10
  CHECK(line.at(line.FirstWithGapFrom(1, 10)).start_ns == 20);    // 40 - 30
  CHECK(line.at(line.FirstWithGapFrom(21, 3)).start_ns == 47);    // 40's gap of 2 is short
  CHECK(line.at(line.LastWithGapBefore(40, 10)).start_ns == 20);  // the resized one
  line.Resize(47, 47, 60);  // the last one stays unbounded after
  CHECK(line.at(line.FirstWithGapFrom(41, 1000)).end_ns == 60);
}

TEST_CASE("channel schedule: random reservations and releases against a bitmap") {
  std::mt19937 random(20261126);
  for (int trial = 0; trial < 200; ++trial) {
    ChannelSchedule channel;
    Bitmap oracle;
    std::vector<std::pair<int64_t, int64_t>> reserved;
    for (int op = 0; op < 60; ++op) {
      const int64_t start = static_cast<int64_t>(random() % (kLine - 20));
      const int64_t length = 1 + static_cast<int64_t>(random() % 12);
      switch (random() % 4) {
        case 0:
        case 1:
          channel.Reserve(start, start + length);
          oracle.Set(start, start + length, 1);
          reserved.push_back({start, start + length});
          break;
        case 2: {
          // Give back part of an earlier reservation when it is still one busy run (a
          // reservation of ours); anything else is ignored by both.
          if (reserved.empty()) break;
          auto [from, to] = reserved[random() % reserved.size()];
          from += static_cast<int64_t>(random() % (to - from));
          channel.Release(from, to);
          if (oracle.AllBusy(from, to)) oracle.Set(from, to, 0);
          break;
        }
        default:
          break;
      }
      const int64_t lower = static_cast<int64_t>(random() % kLine);
      const int64_t duration = 1 + static_cast<int64_t>(random() % 15);
      const int64_t deadline = lower + static_cast<int64_t>(random() % 80);
      INFO("trial " << trial << " op " << op << " lower " << lower << " duration " << duration
                    << " deadline " << deadline);
      REQUIRE(channel.EarliestStart(lower, duration) == oracle.Earliest(lower, duration));
      REQUIRE(channel.LatestStart(lower, deadline, duration) ==
              oracle.Latest(lower, deadline, duration));
    }
  }
}
