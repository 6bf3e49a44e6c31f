// The treap of busy intervals behind ChannelSchedule (see busy_intervals.h).
#include "planner/busy_intervals.h"

#include <algorithm>

namespace hyperplan::planner {

void BusyIntervals::Pull(int32_t node) {
  Node& n = nodes_[node];
  n.max_gap_ns = std::max({n.interval.gap_after_ns, MaxGap(n.left), MaxGap(n.right)});
}

void BusyIntervals::Split(int32_t node, int64_t t, int32_t& left, int32_t& right) {
  if (node == kNone) {
    left = right = kNone;
    return;
  }
  if (nodes_[node].interval.start_ns < t) {
    Split(nodes_[node].right, t, nodes_[node].right, right);
    left = node;
  } else {
    Split(nodes_[node].left, t, left, nodes_[node].left);
    right = node;
  }
  Pull(node);
}

int32_t BusyIntervals::Merge(int32_t left, int32_t right) {
  if (left == kNone) return right;
  if (right == kNone) return left;
  if (nodes_[left].priority > nodes_[right].priority) {
    nodes_[left].right = Merge(nodes_[left].right, right);
    Pull(left);
    return left;
  }
  nodes_[right].left = Merge(left, nodes_[right].left);
  Pull(right);
  return right;
}

int32_t BusyIntervals::NewNode(const Interval& interval) {
  // splitmix64: a fixed sequence, so the same inserts build the same tree.
  seed_ += 0x9E3779B97F4A7C15ull;
  uint64_t z = seed_;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  Node node;
  node.interval = interval;
  node.max_gap_ns = interval.gap_after_ns;
  node.priority = z ^ (z >> 31);
  if (!free_.empty()) {
    const int32_t handle = free_.back();
    free_.pop_back();
    nodes_[handle] = node;
    return handle;
  }
  nodes_.push_back(node);
  return static_cast<int32_t>(nodes_.size()) - 1;
}

int32_t BusyIntervals::LastStartingAtOrBefore(int64_t t) const {
  int32_t found = kNone;
  for (int32_t node = root_; node != kNone;) {
    if (nodes_[node].interval.start_ns <= t) {
      found = node;
      node = nodes_[node].right;
    } else {
      node = nodes_[node].left;
    }
  }
  return found;
}

int32_t BusyIntervals::FirstStartingAfter(int64_t t) const {
  int32_t found = kNone;
  for (int32_t node = root_; node != kNone;) {
    if (nodes_[node].interval.start_ns > t) {
      found = node;
      node = nodes_[node].left;
    } else {
      node = nodes_[node].right;
    }
  }
  return found;
}

int32_t BusyIntervals::First() const {
  int32_t node = root_;
  while (node != kNone && nodes_[node].left != kNone) node = nodes_[node].left;
  return node;
}

template <bool kFirst>
int32_t BusyIntervals::ExtremeWithGapIn(int32_t node, int64_t gap_ns) const {
  // kFirst: the earliest (left first); else the latest (right first).
  while (node != kNone && MaxGap(node) >= gap_ns) {
    const Node& n = nodes_[node];
    const int32_t near = kFirst ? n.left : n.right;
    if (MaxGap(near) >= gap_ns) {
      node = near;
    } else if (n.interval.gap_after_ns >= gap_ns) {
      return node;
    } else {
      node = kFirst ? n.right : n.left;
    }
  }
  return kNone;
}

template <bool kFirst>
int32_t BusyIntervals::ExtremeWithGapBeyond(int64_t t, int64_t gap_ns) const {
  // Down the path to t. kFirst: a node starting at or after t is a candidate after everything
  // at or after t in its left subtree (searched next, deeper on the path) and before its right
  // subtree, so each candidate found replaces the last; mirrored for the latest before t.
  int32_t found = kNone;
  for (int32_t node = root_; node != kNone;) {
    const Node& n = nodes_[node];
    const bool beyond = kFirst ? n.interval.start_ns >= t : n.interval.start_ns < t;
    const int32_t toward_t = kFirst ? n.left : n.right;
    const int32_t away = kFirst ? n.right : n.left;
    if (!beyond) {
      node = away;
      continue;
    }
    if (n.interval.gap_after_ns >= gap_ns) {
      found = node;
    } else if (MaxGap(away) >= gap_ns) {
      found = ExtremeWithGapIn<kFirst>(away, gap_ns);
    }
    node = toward_t;
  }
  return found;
}

int32_t BusyIntervals::FirstWithGapFrom(int64_t t, int64_t gap_ns) const {
  return ExtremeWithGapBeyond<true>(t, gap_ns);
}

int32_t BusyIntervals::LastWithGapBefore(int64_t t, int64_t gap_ns) const {
  return ExtremeWithGapBeyond<false>(t, gap_ns);
}

int32_t& BusyIntervals::PathTo(int64_t start_ns, int32_t& node) {
  path_.clear();
  int32_t* link = &root_;
  while (*link != kNone && nodes_[*link].interval.start_ns != start_ns) {
    path_.push_back(*link);
    Node& n = nodes_[*link];
    link = start_ns < n.interval.start_ns ? &n.left : &n.right;
  }
  node = *link;
  return *link;
}

void BusyIntervals::PullPath() {
  for (auto it = path_.rbegin(); it != path_.rend(); ++it) Pull(*it);
}

void BusyIntervals::SetGapAfter(int64_t start_ns, int64_t gap_ns) {
  int32_t node = kNone;
  PathTo(start_ns, node);
  if (node == kNone) return;
  nodes_[node].interval.gap_after_ns = gap_ns;
  Pull(node);
  PullPath();
}

void BusyIntervals::Insert(int64_t start_ns, int64_t end_ns) {
  const int32_t previous = LastStartingAtOrBefore(start_ns);
  const int32_t next = FirstStartingAfter(start_ns);
  Interval interval{start_ns, end_ns, kUnbounded};
  if (next != kNone) interval.gap_after_ns = nodes_[next].interval.start_ns - end_ns;
  if (previous != kNone) {
    SetGapAfter(nodes_[previous].interval.start_ns, start_ns - nodes_[previous].interval.end_ns);
  }
  const int32_t node = NewNode(interval);
  // Down by start while the nodes outrank the new one; it takes the place of the first that
  // does not, whose subtree splits around it (a treap's shape depends only on its keys and
  // priorities, so this builds the tree split-and-merge would).
  path_.clear();
  int32_t* link = &root_;
  while (*link != kNone && nodes_[*link].priority > nodes_[node].priority) {
    path_.push_back(*link);
    Node& n = nodes_[*link];
    link = start_ns < n.interval.start_ns ? &n.left : &n.right;
  }
  int32_t left = kNone;
  int32_t right = kNone;
  Split(*link, start_ns, left, right);
  nodes_[node].left = left;
  nodes_[node].right = right;
  Pull(node);
  *link = node;
  PullPath();
}

void BusyIntervals::Erase(int64_t start_ns) {
  int32_t at = kNone;
  int32_t& link = PathTo(start_ns, at);
  if (at != kNone) {
    link = Merge(nodes_[at].left, nodes_[at].right);
    free_.push_back(at);
    PullPath();
  }
  // The interval before it now reaches to the one after it.
  const int32_t previous = LastStartingAtOrBefore(start_ns);
  if (previous == kNone) return;
  const int32_t next = FirstStartingAfter(start_ns);
  const int64_t gap_ns = next == kNone
                             ? kUnbounded
                             : nodes_[next].interval.start_ns - nodes_[previous].interval.end_ns;
  SetGapAfter(nodes_[previous].interval.start_ns, gap_ns);
}

void BusyIntervals::Resize(int64_t start_ns, int64_t new_start_ns, int64_t new_end_ns) {
  int32_t node = kNone;
  PathTo(start_ns, node);
  if (node == kNone) return;
  Interval& interval = nodes_[node].interval;
  // The next interval's start is the old end plus the old gap.
  if (interval.gap_after_ns != kUnbounded) interval.gap_after_ns += interval.end_ns - new_end_ns;
  interval.start_ns = new_start_ns;
  interval.end_ns = new_end_ns;
  Pull(node);
  PullPath();
  if (new_start_ns == start_ns) return;
  // The interval before now reaches to the new start.
  const int32_t previous = LastStartingAtOrBefore(new_start_ns - 1);
  if (previous == kNone) return;
  const Interval& before = nodes_[previous].interval;
  SetGapAfter(before.start_ns, new_start_ns - before.end_ns);
}

}  // namespace hyperplan::planner
