// Reactive LRU offloading (see reactive_lru.h).
#include "contenders/reactive_lru.h"

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "contenders/copy_reservations.h"
#include "contenders/fit_budget.h"
#include "contenders/plan_builder.h"
#include "contenders/residency_rules.h"
#include "contenders/steady_state.h"

namespace hyperplan::contenders {
namespace {

// One pass of the policy. With a builder it emits the plan; without, it only tracks state
// (the warm-up pass that finds the steady-state starting contents).
class LruRun {
 public:
  LruRun(const ContenderContext& context, int64_t target_bytes, PlanBuilder* builder)
      : context_(context),
        graph_(*context.graph),
        target_bytes_(target_bytes),
        builder_(builder),
        copies_(context),
        resident_(graph_.values.size(), 0),
        stored_(graph_.values.size(), 0),
        last_touch_(graph_.values.size(), 0) {}

  // Owned values start resident when they are not homed (the caller hands them over on the
  // device) or when `warm` lists them; warm values are most recent first.
  void Start(const std::vector<ValueId>& warm) {
    const Step step_count = context_.step_count();
    std::vector<uint8_t> is_warm(graph_.values.size(), 0);
    for (ValueId value : warm) is_warm[value] = 1;
    for (size_t id = 0; id < graph_.values.size(); ++id) {
      const Value& value = graph_.values[id];
      const auto owned = static_cast<ValueId>(id);
      if (value.producer != kNoNode || !Sized(owned)) continue;
      // A cold homed value needs its home copy; without room there it starts on the device.
      if (context_.homes.Homed(owned) && !is_warm[id] && copies_.Reserve(owned)) continue;
      // Untouched this run: older than anything warm, so evicted first.
      Begin(static_cast<ValueId>(id), -2 * step_count - 1 - static_cast<Step>(id));
    }
    for (size_t i = 0; i < warm.size(); ++i) Begin(warm[i], -1 - static_cast<Step>(i));
  }

  void Run() {
    for (Step k = 0; k < context_.step_count(); ++k) RunStep(k);
  }

  // Owned values on the device at the end, most recently used first.
  std::vector<ValueId> OwnedResidentAtEnd() const {
    std::vector<ValueId> owned;
    for (auto it = lru_.rbegin(); it != lru_.rend(); ++it) {
      if (context_.homes.Homed(it->second)) owned.push_back(it->second);
    }
    return owned;
  }

 private:
  bool Sized(ValueId value) const {
    return graph_.values[value].size_known && graph_.values[value].bytes > 0;
  }
  int64_t Bytes(ValueId value) const { return graph_.values[value].bytes; }

  void Begin(ValueId value, Step touch) {
    if (resident_[value]) return;
    resident_[value] = 1;
    resident_bytes_ += Bytes(value);
    last_touch_[value] = touch;
    if (context_.homes.CanLeave(value)) lru_.insert({touch, value});
    if (builder_ != nullptr) builder_->OpenAtStart(value);
  }

  void Touch(ValueId value, Step k) {
    if (!resident_[value]) return;
    if (context_.homes.CanLeave(value)) {
      lru_.erase({last_touch_[value], value});
      lru_.insert({k, value});
    }
    last_touch_[value] = k;
  }

  void Drop(ValueId value) {
    resident_[value] = 0;
    resident_bytes_ -= Bytes(value);
    lru_.erase({last_touch_[value], value});
  }

  void RunStep(Step k) {
    const Node& node = graph_.nodes[context_.order[k]];
    std::vector<ValueId> missing;
    int64_t need_bytes = node.subgraph_peak_bytes;
    for (ValueId input : node.inputs) {
      if (!Sized(input) || resident_[input]) continue;
      if (std::find(missing.begin(), missing.end(), input) == missing.end()) {
        missing.push_back(input);
        need_bytes += Bytes(input);
      }
    }
    for (ValueId output : node.outputs) {
      if (Sized(output)) need_bytes += Bytes(output);
    }
    // Evict least recently used values the node does not read. Values already touched at
    // this step are the node's own inputs; a value opened at the run start cannot leave
    // before step 0.
    auto it = lru_.begin();
    while (resident_bytes_ + need_bytes > target_bytes_ && it != lru_.end()) {
      const ValueId victim = it->second;
      ++it;
      if (ReadBy(node, victim) || k == 0 || !copies_.Reserve(victim)) continue;
      Evict(victim, k);
    }
    for (ValueId input : missing) {
      if (builder_ != nullptr) builder_->Fetch(input, k, {builder_->last_step()});
      resident_[input] = 1;
      resident_bytes_ += Bytes(input);
      last_touch_[input] = k;
      lru_.insert({k, input});
    }
    if (builder_ != nullptr) builder_->Compute(k);
    for (ValueId output : node.outputs) {
      if (!Sized(output)) continue;
      resident_[output] = 1;
      resident_bytes_ += Bytes(output);
      last_touch_[output] = k;
      if (context_.homes.CanLeave(output)) lru_.insert({k, output});
    }
    for (ValueId input : node.inputs) Touch(input, k);
    auto release = [&](ValueId value) {
      if (resident_[value] && DiesAfter(context_, value, k)) {
        Drop(value);
        if (builder_ != nullptr) builder_->CloseAfterCompute(value, k);
      }
    };
    for (ValueId input : node.inputs) release(input);
    for (ValueId output : node.outputs) release(output);
  }

  static bool ReadBy(const Node& node, ValueId value) {
    return std::find(node.inputs.begin(), node.inputs.end(), value) != node.inputs.end();
  }

  void Evict(ValueId value, Step k) {
    if (builder_ != nullptr) {
      builder_->Evict(value, k, {builder_->last_step()});
    }
    stored_[value] = 1;
    Drop(value);
  }

  const ContenderContext& context_;
  const Graph& graph_;
  int64_t target_bytes_;
  PlanBuilder* builder_;
  CopyReservations copies_;
  std::vector<uint8_t> resident_;
  std::vector<uint8_t> stored_;
  std::vector<Step> last_touch_;
  std::set<std::pair<Step, ValueId>> lru_;  // evictable residents, least recent first
  int64_t resident_bytes_ = 0;
};

// The warm set, trimmed (least recent first) so that step 0 fits beside it: the caller's
// inputs, step 0's outputs and scratch, and every homed input step 0 reads (fetched if not
// warm) come first, because nothing can leave the device before step 0.
std::vector<ValueId> TrimForFirstStep(const ContenderContext& context,
                                      const std::vector<ValueId>& warm, int64_t target_bytes) {
  const Graph& graph = *context.graph;
  if (context.step_count() == 0) return {};
  const Node& first = graph.nodes[context.order[0]];
  std::vector<uint8_t> counted(graph.values.size(), 0);
  int64_t bytes = first.subgraph_peak_bytes;
  auto count = [&](ValueId value) {
    const Value& info = graph.values[value];
    if (counted[value] || !info.size_known) return;
    counted[value] = 1;
    bytes += info.bytes;
  };
  for (ValueId output : first.outputs) count(output);
  for (ValueId input : first.inputs) count(input);
  for (size_t id = 0; id < graph.values.size(); ++id) {
    const Value& value = graph.values[id];
    if (value.producer == kNoNode && !context.homes.Homed(static_cast<ValueId>(id))) {
      count(static_cast<ValueId>(id));
    }
  }
  std::vector<ValueId> kept;
  for (ValueId value : warm) {
    if (counted[value]) {
      kept.push_back(value);
      continue;
    }
    if (bytes + graph.values[value].bytes > target_bytes) continue;
    count(value);
    kept.push_back(value);
  }
  return kept;
}

PlanDraft BuildLru(const ContenderContext& context, int64_t target_bytes, int64_t budget_bytes,
                   const std::vector<uint8_t>& start_off) {
  LruRun warm_up(context, target_bytes, nullptr);
  warm_up.Start({});
  warm_up.Run();
  std::vector<ValueId> warm = TrimForFirstStep(context, warm_up.OwnedResidentAtEnd(), target_bytes);
  std::erase_if(warm, [&](ValueId value) { return start_off[value] != 0; });

  PlanBuilder builder(context);
  LruRun run(context, target_bytes, &builder);
  run.Start(warm);
  run.Run();
  PlanBuilder::FinishOptions options;
  options.budget_bytes = budget_bytes;
  return builder.Draft(options);
}

}  // namespace

EvaluatedPlan ReactiveLruPlan(const ContenderContext& context,
                              std::optional<int64_t> budget_bytes) {
  const int64_t budget = context.EffectiveBudget(budget_bytes);
  return FitToBudget(budget, [&](int64_t target) {
    return SteadyState(context, [&](const std::vector<uint8_t>& start_off) {
      return BuildLru(context, target, budget, start_off);
    });
  });
}

}  // namespace hyperplan::contenders
