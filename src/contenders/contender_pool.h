// ContenderPool: the contenders' plans, built by however many threads call Work, and the best
// verified plan among them, the same whichever thread built which.
//
// Threads take the tasks in list order. A task may name an earlier one that must fit for it to
// run (a staged policy and its unstaged twin, portfolio.h); while that one is being built, a
// thread takes the next task that does not wait, and waits only when none is left. Where the
// prerequisite did not fit, the task is skipped. A plan that does not beat the best so far is
// dropped unverified; one that does is verified outside the lock and kept if it still beats the
// best then. `beats` must be a strict weak order (portfolio.cc's is lexicographic); equal plans go
// to the earlier task, so the plan kept is the least verified one under (beats, task order),
// whatever order the plans arrived in, and the outcomes are listed in task order.
// Why: the planner's thread, once its own plan is made, builds contenders beside the contender
// thread instead of waiting for it (the DeepSeek-V3-sized decode's twelve contenders take
// about 22 s one after the other on gh200, the planner about 8 s).
// Cost: the tasks' own, plus one verification per plan that beats the best when it arrives;
// at most one plan per thread and the best are held at once.
// Failures: a task that throws stops the tasks after it; those before it still run, as they
// would one after the other. Its error is kept, not thrown from Work, and ThrowFirstError
// rethrows that of the earliest task that threw: the error one thread would meet first,
// whichever thread met which (thrown from the Work call that ran it, the error and the exit
// status depended on which of two threads threw first, or on whether a pool cancelled as moot
// had taken a task before its Cancel).
// Limits: a thread idles when every task left waits for a prerequisite being built. Cancel
// stops the threads at their next task.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "contenders/portfolio.h"
#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan::contenders {

struct ContenderTask {
  std::string name;
  std::function<EvaluatedPlan()> plan;
  std::optional<size_t> prerequisite;  // a task that must fit for this one to run
};

class ContenderPool {
 public:
  using Beats = std::function<bool(const EvaluatedPlan&, const EvaluatedPlan&)>;
  using Verifies = std::function<bool(const EvaluatedPlan&)>;

  ContenderPool(std::vector<ContenderTask> tasks, Beats beats, Verifies verifies);

  // Builds tasks until none is left to take or the pool is cancelled. Never throws a task's
  // error (ThrowFirstError does).
  void Work();
  void Cancel();
  // After every Work call has returned: rethrows the error of the earliest task that threw, if
  // any did.
  void ThrowFirstError() const;

  // After every Work call has returned: the tasks that ran, in task order, and the best
  // verified plan (produced_by set to its task's name).
  std::vector<ContenderOutcome> Outcomes() const;
  std::optional<EvaluatedPlan> TakeBest();

 private:
  enum class State { kWaiting, kBuilding, kDone };

  // The first task ready to build (marked building), or nullopt when none is left; marks as
  // done the tasks whose prerequisite did not fit. Waits while every task left waits.
  std::optional<size_t> Take(std::unique_lock<std::mutex>& lock);
  // Whether the plan of task `index` would be the best now.
  bool WouldWin(const EvaluatedPlan& plan, size_t index) const;
  void Offer(EvaluatedPlan plan, size_t index);
  void Finish(size_t index, std::optional<ContenderOutcome> outcome);

  const std::vector<ContenderTask> tasks_;
  const Beats beats_;
  const Verifies verifies_;

  mutable std::mutex mutex_;
  std::condition_variable task_done_;
  bool cancelled_ = false;
  std::vector<State> state_;
  std::vector<std::optional<ContenderOutcome>> outcomes_;
  std::optional<EvaluatedPlan> best_;
  size_t best_index_ = 0;
  std::optional<size_t> failed_;  // the earliest task that threw: no task after it is taken
  std::exception_ptr error_;      // its error
};

}  // namespace hyperplan::contenders
