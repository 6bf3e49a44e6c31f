// The contenders' plans on any number of threads (see contender_pool.h).
#include "contenders/contender_pool.h"

#include <utility>

namespace hyperplan::contenders {

ContenderPool::ContenderPool(std::vector<ContenderTask> tasks, Beats beats, Verifies verifies)
    : tasks_(std::move(tasks)),
      beats_(std::move(beats)),
      verifies_(std::move(verifies)),
      state_(tasks_.size(), State::kWaiting),
      outcomes_(tasks_.size()) {}

void ContenderPool::Work() {
  for (;;) {
    std::unique_lock<std::mutex> lock(mutex_);
    const std::optional<size_t> index = Take(lock);
    if (!index) return;
    lock.unlock();
    try {
      EvaluatedPlan planned = tasks_[*index].plan();
      const PlanEvaluation& evaluation = planned.evaluation;
      ContenderOutcome outcome{tasks_[*index].name, evaluation.fits,
                               evaluation.timeline.makespan_ns, planned.plan.layout.arena_bytes,
                               evaluation.timeline.total_bytes_moved()};
      Offer(std::move(planned), *index);
      Finish(*index, std::move(outcome));
    } catch (...) {
      {
        const std::lock_guard<std::mutex> guard(mutex_);
        if (!failed_ || *index < *failed_) {
          failed_ = *index;
          error_ = std::current_exception();
        }
      }
      Finish(*index, std::nullopt);
    }
  }
}

void ContenderPool::ThrowFirstError() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (error_) std::rethrow_exception(error_);
}

void ContenderPool::Cancel() {
  const std::lock_guard<std::mutex> lock(mutex_);
  cancelled_ = true;
}

std::vector<ContenderOutcome> ContenderPool::Outcomes() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::vector<ContenderOutcome> ran;
  for (const std::optional<ContenderOutcome>& outcome : outcomes_) {
    if (outcome) ran.push_back(*outcome);
  }
  return ran;
}

std::optional<EvaluatedPlan> ContenderPool::TakeBest() {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (best_) best_->plan.produced_by = tasks_[best_index_].name;
  return std::exchange(best_, std::nullopt);
}

std::optional<size_t> ContenderPool::Take(std::unique_lock<std::mutex>& lock) {
  for (;;) {
    if (cancelled_) return std::nullopt;
    bool waiting = false;  // some task waits for a prerequisite still being built
    for (size_t index = 0; index < tasks_.size(); ++index) {
      if (failed_ && index > *failed_) break;  // after a task that threw: one thread stops there
      if (state_[index] != State::kWaiting) continue;
      const std::optional<size_t> prerequisite = tasks_[index].prerequisite;
      if (prerequisite && state_[*prerequisite] != State::kDone) {
        waiting = true;
        continue;
      }
      if (prerequisite && !(outcomes_[*prerequisite] && outcomes_[*prerequisite]->fits)) {
        state_[index] = State::kDone;  // skipped: it cannot fit where its prerequisite does not
        task_done_.notify_all();
        continue;
      }
      state_[index] = State::kBuilding;
      return index;
    }
    if (!waiting) return std::nullopt;
    task_done_.wait(lock);
  }
}

bool ContenderPool::WouldWin(const EvaluatedPlan& plan, size_t index) const {
  if (!best_) return true;
  if (beats_(plan, *best_)) return true;
  return index < best_index_ && !beats_(*best_, plan);  // equal: the earlier task's
}

void ContenderPool::Offer(EvaluatedPlan plan, size_t index) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!WouldWin(plan, index)) return;
  }
  if (!verifies_(plan)) return;
  const std::lock_guard<std::mutex> lock(mutex_);
  if (!WouldWin(plan, index)) return;  // a better one arrived while this one was verified
  best_ = std::move(plan);
  best_index_ = index;
}

void ContenderPool::Finish(size_t index, std::optional<ContenderOutcome> outcome) {
  const std::lock_guard<std::mutex> lock(mutex_);
  outcomes_[index] = std::move(outcome);
  state_[index] = State::kDone;
  task_done_.notify_all();
}

}  // namespace hyperplan::contenders
