// BusyIntervals: one channel's busy time, as disjoint, never touching intervals, with the
// free gap after each one, searchable by gap length.
//
// A treap keyed by interval start, each node holding its interval, the free
// gap to the next interval (unbounded after the last) and the largest gap in its subtree. A
// search for "the first interval at or after t followed by a gap of at least d" (or the last
// one before t) descends only into subtrees whose largest gap is long enough, so a saturated
// link full of short gaps costs O(log n) a search instead of a walk over every gap it crosses.
// Priorities come from a fixed-seed generator: the tree's shape, never its answers, depends
// on them, so results are deterministic.
// Cost: O(log n) expected per insertion, removal, resize, gap update and search for n
// intervals.
// Memory: one node per interval (freed nodes are reused).
// Limits: the caller keeps intervals disjoint and non-touching (ChannelSchedule merges first).
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace hyperplan::planner {

class BusyIntervals {
 public:
  static constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max();
  static constexpr int32_t kNone = -1;

  struct Interval {
    int64_t start_ns = 0;
    int64_t end_ns = 0;
    int64_t gap_after_ns = kUnbounded;  // to the next interval's start; unbounded after the last
  };

  bool empty() const { return root_ == kNone; }
  // Handles (kNone: none) stay valid until their interval is removed.
  const Interval& at(int32_t handle) const { return nodes_[handle].interval; }

  // The interval with the largest start <= t.
  int32_t LastStartingAtOrBefore(int64_t t) const;
  // The interval with the smallest start > t.
  int32_t FirstStartingAfter(int64_t t) const;
  // The first interval (by start) with start >= t whose gap after it is >= gap_ns.
  int32_t FirstWithGapFrom(int64_t t, int64_t gap_ns) const;
  // The last interval with start < t whose gap after it is >= gap_ns.
  int32_t LastWithGapBefore(int64_t t, int64_t gap_ns) const;
  int32_t First() const;

  // Adds [start, end), which must not overlap or touch another interval; gaps are updated.
  void Insert(int64_t start_ns, int64_t end_ns);
  // Removes the interval starting at `start_ns` (which must exist); gaps are updated.
  void Erase(int64_t start_ns);
  // Makes the interval starting at `start_ns` (which must exist) [new_start_ns, new_end_ns),
  // still apart from its neighbours; gaps are updated. The order of starts is unchanged, so
  // the node keeps its place: no split or merge (an Erase and an Insert cost twice the walks).
  void Resize(int64_t start_ns, int64_t new_start_ns, int64_t new_end_ns);

 private:
  struct Node {
    Interval interval;
    int64_t max_gap_ns = kUnbounded;  // the largest gap_after_ns in the subtree
    uint64_t priority = 0;
    int32_t left = kNone;
    int32_t right = kNone;
  };

  int64_t MaxGap(int32_t node) const { return node == kNone ? -1 : nodes_[node].max_gap_ns; }
  void Pull(int32_t node);
  // Splits `node` into starts < t (left) and starts >= t (right).
  void Split(int32_t node, int64_t t, int32_t& left, int32_t& right);
  int32_t Merge(int32_t left, int32_t right);
  // The link (root_ or a child field) that holds the node starting at `start_ns`, which is
  // stored in `node` (kNone: no such node; the link is where it would hang). path_ receives
  // the nodes above it, root first.
  int32_t& PathTo(int64_t start_ns, int32_t& node);
  // Recomputes the largest gaps along path_, deepest first.
  void PullPath();
  int32_t NewNode(const Interval& interval);
  // The first (kFirst) or last node of the subtree, in start order, whose gap is >= gap_ns.
  template <bool kFirst>
  int32_t ExtremeWithGapIn(int32_t node, int64_t gap_ns) const;
  // kFirst: FirstWithGapFrom(t, gap_ns); else LastWithGapBefore(t, gap_ns).
  template <bool kFirst>
  int32_t ExtremeWithGapBeyond(int64_t t, int64_t gap_ns) const;
  // Sets the gap after the interval starting at `start_ns`, if there is one.
  void SetGapAfter(int64_t start_ns, int64_t gap_ns);

  std::vector<Node> nodes_;
  std::vector<int32_t> free_;
  std::vector<int32_t> path_;  // scratch for PathTo and Insert: no allocation per update
  int32_t root_ = kNone;
  uint64_t seed_ = 0x9E3779B97F4A7C15ull;
};

}  // namespace hyperplan::planner
