// Byte patterns: what a value's bytes must be, derived from its id and the iteration that
// wrote them, so a reader can tell whether the bytes at its planned offset are its producer's.
//
// Byte j of value v written at version n is byte (j mod 8) of Mix(v, n, j / 8): a 64-bit word
// that changes with the value, the version and the position, so a copy of another value, of
// another iteration's bytes or of a shifted range never passes. A value updated in place (an
// alias pair, hyperplan/loop.h) changes only its last `tail_bytes`: bytes before the tail keep
// version 0 (the cold start's), the tail carries the version of the iteration that last wrote
// it; a value written whole has tail_bytes == bytes. Cost: one multiply-xorshift per 8 bytes to
// fill or check in full; a sampled check reads the first and last word and 62 strided ones.
// Limits: a sampled check can miss a corruption between its samples.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "hyperplan/graph.h"

namespace hyperplan::executor {

// The content of one value's buffer: whose bytes, which iteration's.
struct BytePattern {
  ValueId value = kNoValue;
  int64_t version = 0;     // iteration that wrote the tail; 0: placed before iteration 1
  int64_t bytes = 0;       // the value's size
  int64_t tail_bytes = 0;  // bytes [bytes - tail_bytes, bytes) carry `version`, the rest 0

  bool operator==(const BytePattern&) const = default;
};

enum class CheckMode { kFull, kSampled };

// Writes bytes [begin_byte, end_byte) of `pattern` to `data` (which points at byte begin_byte).
void FillPattern(std::byte* data, const BytePattern& pattern, int64_t begin_byte, int64_t end_byte);

// The first byte in [begin_byte, end_byte) that differs from `pattern` (an offset within the
// value), or nullopt when every checked byte matches.
std::optional<int64_t> FindMismatch(const std::byte* data, const BytePattern& pattern,
                                    int64_t begin_byte, int64_t end_byte, CheckMode mode);

}  // namespace hyperplan::executor
