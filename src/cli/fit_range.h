// The dim ranges `hyperplan fit` moves: --grow NAME[=MIN..MAX] and --sweep NAME=FROM..TO[:STEP].
//
// Values are whole numbers with an optional binary suffix, as context lengths are spoken:
// "4k" is 4096, "128k" 131072, "1M" 1048576 (k, K: 2^10; M: 2^20; G: 2^30). A sweep without a
// step doubles from FROM (4k, 8k, ... up to TO, which is always the last row); with one, it
// adds STEP. Cost: linear in the text. Limits: at most kMaxSweepRows rows, so a typo cannot
// plan a million points.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hyperplan::cli {

inline constexpr int64_t kDefaultGrowMax = int64_t{1} << 24;  // 16M: beyond every context yet
inline constexpr size_t kMaxSweepRows = 256;

struct GrowRange {
  std::string dim;
  int64_t min = 1;
  int64_t max = kDefaultGrowMax;
};

struct SweepRange {
  std::string dim;
  int64_t from = 0;
  int64_t to = 0;
  int64_t step = 0;  // 0: double each row

  std::vector<int64_t> Values() const;  // ascending, `to` last
};

// "4k" -> 4096; nullopt with `problem` set when it is not such a value.
std::optional<int64_t> ParseDimValue(std::string_view text, std::string& problem);

// Parse results, or the problem in `problem` (for CLI11 validators and the command).
std::optional<GrowRange> ParseGrowRange(std::string_view text, std::string& problem);
std::optional<SweepRange> ParseSweepRange(std::string_view text, std::string& problem);

}  // namespace hyperplan::cli
