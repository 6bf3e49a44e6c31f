// Stabbing queries over candidate cover ranges (see candidate_index.h).
#include "planner/candidate_index.h"

#include <algorithm>
#include <functional>

namespace hyperplan::planner {

CandidateIndex::CandidateIndex(Step step_count, const std::vector<Candidate>& candidates,
                               const std::vector<uint8_t>& alive)
    : step_count_(step_count) {
  if (step_count_ <= 0) return;
  heaps_.resize(4 * static_cast<size_t>(step_count_));
  if (candidates.empty()) return;
  // Inserting in rank order leaves every node's vector sorted ascending: already a min-heap.
  for (size_t c = 0; c < candidates.size(); ++c) {
    if (!alive[c]) continue;
    const Candidate& candidate = candidates[c];
    const Step first = std::max<Step>(candidate.cover_first, 0);
    const Step last = std::min<Step>(candidate.cover_last, step_count_ - 1);
    if (first > last) continue;
    Insert(1, 0, step_count_ - 1, first, last, static_cast<int32_t>(c));
  }
}

void CandidateIndex::Add(int32_t candidate, const Candidate& info) {
  const Step first = std::max<Step>(info.cover_first, 0);
  const Step last = std::min<Step>(info.cover_last, step_count_ - 1);
  if (step_count_ <= 0 || first > last) return;
  AddRec(1, 0, step_count_ - 1, first, last, candidate);
}

void CandidateIndex::AddRec(int32_t node, Step lo, Step hi, Step first, Step last,
                            int32_t candidate) {
  if (first <= lo && hi <= last) {
    auto& heap = heaps_[node];
    heap.push_back(candidate);
    std::push_heap(heap.begin(), heap.end(), std::greater<int32_t>());
    return;
  }
  const Step mid = lo + (hi - lo) / 2;
  if (first <= mid) AddRec(2 * node, lo, mid, first, last, candidate);
  if (last > mid) AddRec(2 * node + 1, mid + 1, hi, first, last, candidate);
}

void CandidateIndex::Insert(int32_t node, Step lo, Step hi, Step first, Step last,
                            int32_t candidate) {
  if (first <= lo && hi <= last) {
    heaps_[node].push_back(candidate);
    return;
  }
  const Step mid = lo + (hi - lo) / 2;
  if (first <= mid) Insert(2 * node, lo, mid, first, last, candidate);
  if (last > mid) Insert(2 * node + 1, mid + 1, hi, first, last, candidate);
}

CandidateIndex::Entry CandidateIndex::PopBest(Step step, const std::vector<uint8_t>& alive) {
  Entry best;
  if (step < 0 || step >= step_count_) return best;
  Step lo = 0;
  Step hi = step_count_ - 1;
  int32_t node = 1;
  while (true) {
    auto& heap = heaps_[node];
    while (!heap.empty() && !alive[heap.front()]) {
      std::pop_heap(heap.begin(), heap.end(), std::greater<int32_t>());
      heap.pop_back();
    }
    if (!heap.empty() && (best.candidate < 0 || heap.front() < best.candidate)) {
      best = Entry{heap.front(), node};
    }
    if (lo == hi) break;
    const Step mid = lo + (hi - lo) / 2;
    if (step <= mid) {
      hi = mid;
      node = 2 * node;
    } else {
      lo = mid + 1;
      node = 2 * node + 1;
    }
  }
  if (best.candidate >= 0) {
    auto& heap = heaps_[best.node];
    std::pop_heap(heap.begin(), heap.end(), std::greater<int32_t>());
    heap.pop_back();
  }
  return best;
}

void CandidateIndex::PushBack(const Entry& entry) {
  auto& heap = heaps_[entry.node];
  heap.push_back(entry.candidate);
  std::push_heap(heap.begin(), heap.end(), std::greater<int32_t>());
}

}  // namespace hyperplan::planner
