// Byte patterns (see byte_pattern.h).
#include "executor/byte_pattern.h"

#include <algorithm>

#include "executor/byte_pattern_word.h"

namespace hyperplan::executor {
namespace {

// Byte j of a pattern, computing each 64-bit word once for the 8 bytes it covers.
class PatternBytes {
 public:
  explicit PatternBytes(const BytePattern& pattern) : pattern_(pattern) {}
  std::byte At(int64_t j) {
    const int64_t version = j >= pattern_.bytes - pattern_.tail_bytes ? pattern_.version : 0;
    if (j / 8 != word_index_ || version != word_version_) {
      word_index_ = j / 8;
      word_version_ = version;
      word_ = PatternWord(pattern_.value, version, word_index_);
    }
    return static_cast<std::byte>(word_ >> (8 * (j % 8)));
  }

 private:
  const BytePattern& pattern_;
  int64_t word_index_ = -1;
  int64_t word_version_ = -1;
  uint64_t word_ = 0;
};

}  // namespace

void FillPattern(std::byte* data, const BytePattern& pattern, int64_t begin_byte,
                 int64_t end_byte) {
  PatternBytes expected(pattern);
  for (int64_t j = begin_byte; j < end_byte; ++j) data[j - begin_byte] = expected.At(j);
}

std::optional<int64_t> FindMismatch(const std::byte* data, const BytePattern& pattern,
                                    int64_t begin_byte, int64_t end_byte, CheckMode mode) {
  PatternBytes expected(pattern);
  const auto differs = [&](int64_t j) { return data[j - begin_byte] != expected.At(j); };
  if (mode == CheckMode::kFull || end_byte - begin_byte <= 64 * 8) {
    for (int64_t j = begin_byte; j < end_byte; ++j) {
      if (differs(j)) return j;
    }
    return std::nullopt;
  }
  // Sampled: 64 runs of 8 bytes, the first at begin_byte and the last ending at end_byte.
  const int64_t stride_bytes = (end_byte - begin_byte - 8) / 63;
  for (int sample = 0; sample < 64; ++sample) {
    const int64_t first = sample == 63 ? end_byte - 8 : begin_byte + sample * stride_bytes;
    for (int64_t j = first; j < first + 8; ++j) {
      if (differs(j)) return j;
    }
  }
  return std::nullopt;
}

}  // namespace hyperplan::executor
