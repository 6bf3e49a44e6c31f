// Ledger (see ledger.h).
#include "executor/ledger.h"

#include <fmt/format.h>

#include <algorithm>

namespace hyperplan::executor {

HappensBefore::HappensBefore(const std::vector<int32_t>& stream_of,
                             const std::vector<std::vector<int32_t>>& waits_for,
                             int32_t stream_count)
    : stream_of_(stream_of), position_(stream_of.size(), 0), clock_at_start_(stream_of.size()) {
  std::vector<int32_t> steps_on(stream_count, 0);
  std::vector<int32_t> last_on(stream_count, -1);
  // A step's end clock is its start clock plus itself; its start clock joins the end clocks of
  // its stream predecessor and of every step it waits for (all earlier in the sequence).
  const auto end_clock = [&](int32_t step) {
    std::vector<int32_t> clock = clock_at_start_[step];
    clock[stream_of_[step]] = position_[step];
    return clock;
  };
  for (size_t s = 0; s < stream_of.size(); ++s) {
    const int32_t stream = stream_of[s];
    std::vector<int32_t> clock(stream_count, 0);
    const auto join = [&](int32_t before) {
      const std::vector<int32_t> other = end_clock(before);
      for (int32_t t = 0; t < stream_count; ++t) clock[t] = std::max(clock[t], other[t]);
    };
    if (last_on[stream] >= 0) join(last_on[stream]);
    for (int32_t wait : waits_for[s]) join(wait);
    clock_at_start_[s] = std::move(clock);
    position_[s] = ++steps_on[stream];
    last_on[stream] = static_cast<int32_t>(s);
  }
}

bool HappensBefore::Ordered(Access earlier, Access later) const {
  if (earlier.iteration != later.iteration) return earlier.iteration < later.iteration;
  if (earlier.step < 0) return true;  // the caller, before the iteration's steps
  if (later.step < 0) return false;
  if (earlier.step == later.step) return true;
  return clock_at_start_[later.step][stream_of_[earlier.step]] >= position_[earlier.step];
}

Ledger::Ledger(std::vector<Block> blocks, const HappensBefore& order,
               std::vector<std::string> steps)
    : blocks_(std::move(blocks)), order_(order), steps_(std::move(steps)) {
  state_.resize(blocks_.size());
  int32_t buffers = 0;
  for (const Block& block : blocks_) buffers = std::max(buffers, block.buffer + 1);
  segments_.resize(buffers);
}

std::string Ledger::Who(Access access) const {
  if (access.step < 0) return fmt::format("the caller before iteration {}", access.iteration);
  return fmt::format("step {} of iteration {} ({})", access.step, access.iteration,
                     steps_[access.step]);
}

void Ledger::SplitAt(std::map<int64_t, Segment>& segments, int64_t at) {
  auto it = segments.upper_bound(at);
  if (it == segments.begin()) return;
  --it;
  if (it->first == at || it->second.end <= at) return;
  const Segment tail{it->second.end, it->second.block};
  it->second.end = at;
  segments.emplace(at, tail);
}

std::optional<std::string> Ledger::Allocate(int32_t block, Access access) {
  State& state = state_[block];
  const Block& where = blocks_[block];
  if (state.live) return fmt::format("allocates {}, which is already allocated", where.name);
  if (where.bytes > 0) {
    auto& segments = segments_[where.buffer];
    const int64_t begin = where.offset_bytes;
    const int64_t end = begin + where.bytes;
    SplitAt(segments, begin);
    SplitAt(segments, end);
    for (auto it = segments.lower_bound(begin); it != segments.end() && it->first < end; ++it) {
      const int32_t holder = it->second.block;
      const State& held = state_[holder];
      if (held.live) {
        return fmt::format("allocates {} over bytes [{}, {}) that {} still holds", where.name,
                           it->first, it->second.end, blocks_[holder].name);
      }
      if (held.freed && !order_.Ordered(*held.freed, access)) {
        return fmt::format(
            "allocates {} over bytes [{}, {}) of {}, freed by {}, which it does "
            "not wait for",
            where.name, it->first, it->second.end, blocks_[holder].name, Who(*held.freed));
      }
    }
    segments.erase(segments.lower_bound(begin), segments.lower_bound(end));
    segments.emplace(begin, Segment{end, block});
  }
  state = State{};
  state.live = true;
  state.allocated = access;
  return std::nullopt;
}

std::optional<std::string> Ledger::CheckOrderedAfterUses(int32_t block, Access access,
                                                         const char* what) const {
  const State& state = state_[block];
  if (state.content && !order_.Ordered(state.writer, access)) {
    return fmt::format("{} {} while {} writes it, without waiting for it", what,
                       blocks_[block].name, Who(state.writer));
  }
  for (const Access& reader : state.readers) {
    if (!order_.Ordered(reader, access)) {
      return fmt::format("{} {} while {} reads it, without waiting for it", what,
                         blocks_[block].name, Who(reader));
    }
  }
  return std::nullopt;
}

std::optional<std::string> Ledger::Free(int32_t block, Access access) {
  State& state = state_[block];
  if (!state.live) return fmt::format("frees {}, which is not allocated", blocks_[block].name);
  if (auto problem = CheckOrderedAfterUses(block, access, "frees")) return problem;
  state.live = false;
  state.freed = access;
  return std::nullopt;
}

std::optional<std::string> Ledger::Read(int32_t block, Access access,
                                        const std::optional<BytePattern>& expected) {
  State& state = state_[block];
  const std::string& name = blocks_[block].name;
  if (!state.live) {
    if (state.freed && state.freed->iteration == access.iteration) {
      return fmt::format("reads {} after {} freed it", name, Who(*state.freed));
    }
    return fmt::format("reads {} before it is allocated", name);
  }
  if (!state.content) return fmt::format("reads {} before anything wrote it", name);
  if (!order_.Ordered(state.writer, access)) {
    return fmt::format("reads {}, written by {}, which it does not wait for", name,
                       Who(state.writer));
  }
  if (expected && !(*state.content == *expected)) {
    return fmt::format("reads {}, which holds iteration {}'s bytes, not iteration {}'s", name,
                       state.content->version, expected->version);
  }
  // Reads of earlier iterations are ordered before everything in this one: drop them, so a
  // weight read every iteration does not grow its list with the iteration count.
  if (!state.readers.empty() && state.readers.front().iteration < access.iteration) {
    std::erase_if(state.readers,
                  [&](const Access& reader) { return reader.iteration < access.iteration; });
  }
  state.readers.push_back(access);
  return std::nullopt;
}

std::optional<std::string> Ledger::Write(int32_t block, Access access, const BytePattern& content) {
  State& state = state_[block];
  if (!state.live) return fmt::format("writes {}, which is not allocated", blocks_[block].name);
  if (auto problem = CheckOrderedAfterUses(block, access, "overwrites")) return problem;
  state.content = content;
  state.writer = access;
  state.readers.clear();
  return std::nullopt;
}

std::optional<std::string> Ledger::Carry(int32_t from, int32_t to, Access access) {
  if (from == to) return std::nullopt;
  const State moved = state_[from];
  state_[from].live = false;
  state_[from].freed = access;
  if (auto problem = Allocate(to, access)) return problem;
  state_[to].content = moved.content;
  state_[to].writer = access;
  return std::nullopt;
}

}  // namespace hyperplan::executor
