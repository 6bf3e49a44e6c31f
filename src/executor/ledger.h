// Ledger: who holds which bytes of which buffer, whose bytes they are, and who read them: the
// executor's check that every access is ordered by the plan's waits, independent of `verify`.
//
// Two steps are ordered when one ended before the other started in *every* execution the waits
// and stream order allow, not only in this one: the executor's own run order is one of many, so
// the ledger asks the plan's happens-before relation (vector clocks over the streams, computed
// once from `waits_for` and stream order) instead of the clock. A read is then correct when the
// block is allocated, holds the expected value and iteration, and its writer is ordered before
// the reader; a write or a free when every earlier reader and writer is ordered before it; an
// allocation when every block that held those bytes before was freed by a step ordered before
// it. Because every access is entered here before its bytes are touched, and the later of two
// unordered accesses is the one refused, the executor never races on a buffer even when the
// plan is wrong (so ThreadSanitizer stays quiet on broken plans too).
// The host lane is one more stream: a host step's reads of its input copies on the host tier,
// its writes of the copies it opens and the frees of copies it closes are checked the same way.
// Iterations run one after the other: anything in an earlier iteration is ordered before.
// Cost: O(streams) per order query; an allocation O(log blocks + blocks it overlaps).
// Limits: not thread-safe by itself (the executor holds one mutex around every call).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "executor/byte_pattern.h"

namespace hyperplan::executor {

// One access: a step of an iteration, or the caller (step -1) before that iteration's steps.
struct Access {
  int32_t step = -1;
  int32_t iteration = 0;
};

// The plan's happens-before relation over its steps (static: the same for every run).
class HappensBefore {
 public:
  // `stream_of[s]`: the stream of step s; `waits_for[s]`: steps it waits for (all before s).
  HappensBefore(const std::vector<int32_t>& stream_of,
                const std::vector<std::vector<int32_t>>& waits_for, int32_t stream_count);
  // True when `earlier` surely ended before `later` started.
  bool Ordered(Access earlier, Access later) const;

 private:
  std::vector<int32_t> stream_of_;
  std::vector<int32_t> position_;                     // 1-based position of each step on its stream
  std::vector<std::vector<int32_t>> clock_at_start_;  // per step: steps ended per stream
};

// A block one buffer holds: a device residency or an off-device copy.
struct Block {
  int32_t buffer = 0;
  int64_t offset_bytes = 0;
  int64_t bytes = 0;
  std::string name;  // "'x' (device block at 256)" for messages
};

class Ledger {
 public:
  Ledger(std::vector<Block> blocks, const HappensBefore& order, std::vector<std::string> steps);

  // Each returns the problem in words (naming the other step involved), or nullopt when fine.
  std::optional<std::string> Allocate(int32_t block, Access access);
  std::optional<std::string> Free(int32_t block, Access access);
  // `expected`: the content the reader needs; nullopt: whatever its writer put there.
  std::optional<std::string> Read(int32_t block, Access access,
                                  const std::optional<BytePattern>& expected);
  std::optional<std::string> Write(int32_t block, Access access, const BytePattern& content);

  bool Live(int32_t block) const { return state_[block].live; }
  const std::optional<BytePattern>& Content(int32_t block) const { return state_[block].content; }
  Access Writer(int32_t block) const { return state_[block].writer; }
  // The step that last freed it, until it is allocated again.
  const std::optional<Access>& Freed(int32_t block) const { return state_[block].freed; }
  // Hands a live block's bytes and content to block `to` at the same place (the next
  // iteration's block of a persistent value), between iterations.
  std::optional<std::string> Carry(int32_t from, int32_t to, Access access);

 private:
  struct State {
    bool live = false;
    std::optional<BytePattern> content;
    Access writer;
    std::vector<Access> readers;  // since the last write
    Access allocated;
    std::optional<Access> freed;
  };
  struct Segment {
    int64_t end = 0;
    int32_t block = -1;
  };
  std::string Who(Access access) const;
  std::optional<std::string> CheckOrderedAfterUses(int32_t block, Access access,
                                                   const char* what) const;
  void SplitAt(std::map<int64_t, Segment>& segments, int64_t at);

  std::vector<Block> blocks_;
  const HappensBefore& order_;
  std::vector<std::string> steps_;
  std::vector<State> state_;
  std::vector<std::map<int64_t, Segment>> segments_;  // per buffer: begin -> [begin, end) holder
};

}  // namespace hyperplan::executor
