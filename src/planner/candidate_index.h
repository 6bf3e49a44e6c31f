// CandidateIndex: "the best-ranked live candidate that covers step p", in O(log^2 n).
//
// A segment tree over steps; each candidate sits in the O(log n) canonical nodes that tile
// its cover range, and each node keeps a min-heap of candidate ranks (candidates are indexed
// by rank, so lower index is better). A point lies in at most one of a candidate's canonical
// nodes, so popping it there removes it from every query at that point; the other nodes keep
// it for other steps. Candidates that are taken or rejected are dropped lazily when they reach
// a heap's top. Cost: O(c log n) memory and build; PopBest O(log n) heap tops plus the lazy
// pops; PushBack O(log c).
#pragma once

#include <cstdint>
#include <vector>

#include "hyperplan/lifetimes.h"
#include "planner/candidates.h"

namespace hyperplan::planner {

class CandidateIndex {
 public:
  struct Entry {
    int32_t candidate = -1;  // -1: none
    int32_t node = 0;        // the tree node it was popped from
  };

  // `alive[c]` false: never returned.
  CandidateIndex(Step step_count, const std::vector<Candidate>& candidates,
                 const std::vector<uint8_t>& alive);

  // Removes and returns the best live candidate covering `step` (as of `alive`).
  Entry PopBest(Step step, const std::vector<uint8_t>& alive);

  // Puts a popped candidate back where it came from.
  void PushBack(const Entry& entry);

  // Adds a candidate over its cover range (an index built with nothing alive grows this way).
  void Add(int32_t candidate, const Candidate& info);

 private:
  void Insert(int32_t node, Step lo, Step hi, Step first, Step last, int32_t candidate);
  void AddRec(int32_t node, Step lo, Step hi, Step first, Step last, int32_t candidate);

  Step step_count_ = 0;
  std::vector<std::vector<int32_t>> heaps_;  // by tree node; min-heaps of candidate index
};

}  // namespace hyperplan::planner
