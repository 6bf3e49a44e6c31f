// Fetch-after-route and resident experts in the planner's plan (see expert_placement.h).
#include "planner/expert_placement.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "hyperplan/plan/cold_start.h"
#include "hyperplan/routed_fetch.h"
#include "plan/chunks.h"
#include "planner/held_weights.h"
#include "planner/renumber_blocks.h"

namespace hyperplan::planner {
namespace {

// Halvings of the resident experts' room tried when the laid-out arena overshoots the budget
// (fragmentation around whole-iteration blocks): 1, 1/2, 1/4, 1/8 of the room left.
constexpr int kRoomAttempts = 4;

// By position in the order: the compute step's index in Plan::steps.
std::vector<int32_t> ComputeIndex(const Plan& plan) {
  std::vector<int32_t> index(plan.order.size(), -1);
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    if (plan.steps[i].kind == StepKind::kCompute) {
      index[plan.steps[i].boundary] = static_cast<int32_t>(i);
    }
  }
  return index;
}

// The last device compute step before position `boundary` (a Prefetch issued there waits for
// it: plan.h), or -1.
int32_t DeviceComputeBefore(const Plan& plan, const std::vector<int32_t>& compute_index,
                            Step boundary) {
  for (Step k = boundary - 1; k >= 0; --k) {
    if (plan.steps[compute_index[k]].unit == ComputeUnit::kDevice) return compute_index[k];
  }
  return -1;
}

// The hop before `streamed`'s Prefetch when that reads a staging copy a Prefetch of the same
// value wrote, freed by it.
void AddStagingHop(const Plan& plan, const std::vector<int32_t>& compute_index,
                   const std::vector<Step>& step_of, StreamedOperand& streamed) {
  const PlanStep& hop = plan.steps[streamed.prefetch];
  for (size_t c = 0; c < plan.tier_copies.size(); ++c) {
    const TierCopy& copy = plan.tier_copies[c];
    if (copy.value != hop.value || copy.tier != hop.src_tier ||
        copy.closed_by != streamed.prefetch || copy.opened_by < 0) {
      continue;
    }
    const PlanStep& staging = plan.steps[copy.opened_by];
    if (staging.kind != StepKind::kPrefetch || staging.value != hop.value) return;
    streamed.staging_prefetch = copy.opened_by;
    streamed.staging_copy = static_cast<int32_t>(c);
    streamed.staging_waits_for = staging.waits_for;
    if (streamed.operand.router != kNoNode) {
      streamed.staging_waits_for.push_back(compute_index[step_of[streamed.operand.router]]);
    }
    std::sort(streamed.staging_waits_for.begin(), streamed.staging_waits_for.end());
    streamed.staging_waits_for.erase(
        std::unique(streamed.staging_waits_for.begin(), streamed.staging_waits_for.end()),
        streamed.staging_waits_for.end());
    return;
  }
}

// The StreamedOperand entry for block `r`, when it is a Prefetch-opened block of a stacked expert
// operand ending at its device MoE node.
std::optional<StreamedOperand> StreamedBlock(const Graph& graph, const Plan& plan,
                                             const std::vector<Step>& step_of,
                                             const std::vector<int32_t>& compute_index, size_t r) {
  const ResidentInterval& block = plan.residency[r];
  if (block.value == kNoValue || !block.experts.empty() || block.opened_by < 0) return {};
  const PlanStep& opener = plan.steps[block.opened_by];
  if (opener.kind != StepKind::kPrefetch || opener.routed_by != kNoNode) return {};
  // A chunked Prefetch stays whole: a routing's experts are not a byte range its later chunks
  // could continue.
  if (IsChunk(graph, opener)) return {};
  const std::vector<NodeId>& readers = graph.values[block.value].consumers;
  if (readers.size() != 1) return {};
  std::optional<RoutedOperand> operand = RoutedOperandOf(graph, readers[0], block.value);
  const Step moe_step = step_of[readers[0]];
  if (!operand || block.last_step != moe_step ||
      plan.steps[compute_index[moe_step]].unit != ComputeUnit::kDevice) {
    return {};
  }
  StreamedOperand streamed;
  streamed.prefetch = block.opened_by;
  streamed.block = r;
  streamed.boundary = block.first_step;
  streamed.waits_for = opener.waits_for;
  if (operand->router != kNoNode) {
    const Step router_step = step_of[operand->router];
    streamed.boundary = std::max(streamed.boundary, router_step + 1);
    streamed.waits_for.push_back(compute_index[router_step]);
  }
  const int32_t before = DeviceComputeBefore(plan, compute_index, streamed.boundary);
  if (before >= 0) streamed.waits_for.push_back(before);
  std::sort(streamed.waits_for.begin(), streamed.waits_for.end());
  streamed.waits_for.erase(std::unique(streamed.waits_for.begin(), streamed.waits_for.end()),
                           streamed.waits_for.end());
  streamed.operand = std::move(*operand);
  AddStagingHop(plan, compute_index, step_of, streamed);
  return streamed;
}

}  // namespace

std::vector<StreamedOperand> FindStreamedOperands(const Graph& graph, const Plan& plan) {
  std::vector<Step> step_of(graph.nodes.size(), 0);
  for (size_t k = 0; k < plan.order.size(); ++k) step_of[plan.order[k]] = static_cast<Step>(k);
  const std::vector<int32_t> compute_index = ComputeIndex(plan);
  std::vector<StreamedOperand> streamed;
  for (size_t r = 0; r < plan.residency.size(); ++r) {
    std::optional<StreamedOperand> entry = StreamedBlock(graph, plan, step_of, compute_index, r);
    if (entry) streamed.push_back(std::move(*entry));
  }
  return streamed;
}

namespace {

// `plan`'s steps with each flagged step moved to just before the compute step at its (new)
// boundary, every step index in waits, residencies and tier copies renumbered.
void Resequence(Plan& plan, const std::vector<uint8_t>& moved) {
  std::map<Step, std::vector<int32_t>> moved_to;  // boundary -> moved steps, in sequence order
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    if (moved[i]) moved_to[plan.steps[i].boundary].push_back(static_cast<int32_t>(i));
  }
  std::vector<int32_t> sequence;
  sequence.reserve(plan.steps.size());
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    if (moved[i]) continue;
    const auto arriving = moved_to.find(plan.steps[i].boundary);
    if (plan.steps[i].kind == StepKind::kCompute && arriving != moved_to.end()) {
      sequence.insert(sequence.end(), arriving->second.begin(), arriving->second.end());
    }
    sequence.push_back(static_cast<int32_t>(i));
  }
  std::vector<int32_t> new_index(plan.steps.size());
  for (size_t k = 0; k < sequence.size(); ++k) new_index[sequence[k]] = static_cast<int32_t>(k);
  auto renumber = [&](int32_t& step) {
    if (step >= 0) step = new_index[step];
  };
  std::vector<PlanStep> steps;
  steps.reserve(sequence.size());
  for (int32_t old : sequence) {
    steps.push_back(std::move(plan.steps[old]));
    for (int32_t& wait : steps.back().waits_for) renumber(wait);
    std::sort(steps.back().waits_for.begin(), steps.back().waits_for.end());
    renumber(steps.back().chunk_of);  // a later chunk names its first chunk by index
  }
  plan.steps = std::move(steps);
  RenumberBlockSteps(plan, renumber);
}

}  // namespace

namespace {

// Makes `index` a routed Prefetch of `entry`'s operand issued at its boundary; flags it moved
// when the boundary changes.
void RouteStep(const StreamedOperand& entry, int32_t index, std::vector<int32_t> waits_for,
               int64_t bytes, int64_t reserved_bytes, Plan& out, std::vector<uint8_t>& moved) {
  PlanStep& step = out.steps[index];
  step.routed_by = entry.operand.routing.node;
  step.reserved_bytes = reserved_bytes;
  step.bytes = bytes;
  step.waits_for = std::move(waits_for);
  moved[index] = step.boundary != entry.boundary ? 1 : 0;
  step.boundary = entry.boundary;
}

}  // namespace

Plan FetchAfterRoute(const Plan& plan, const std::vector<StreamedOperand>& streamed,
                     const std::vector<std::vector<int32_t>>& resident,
                     const std::vector<int64_t>& fetched_bytes) {
  Plan out = plan;
  std::vector<uint8_t> moved(out.steps.size(), 0);
  const auto last_step = static_cast<Step>(out.order.size()) - 1;
  for (size_t i = 0; i < streamed.size(); ++i) {
    const StreamedOperand& entry = streamed[i];
    const auto held = static_cast<int64_t>(resident[i].size());
    const int64_t reserved_bytes = ReservedRoutedBytes(entry.operand, held);
    const int64_t bytes =
        fetched_bytes.empty() ? ExpectedRoutedBytes(entry.operand, resident[i]) : fetched_bytes[i];
    RouteStep(entry, entry.prefetch, entry.waits_for, bytes, reserved_bytes, out, moved);
    if (entry.staging_prefetch >= 0) {
      RouteStep(entry, entry.staging_prefetch, entry.staging_waits_for, bytes, reserved_bytes, out,
                moved);
      // The two hops move together, so the device hop stays after the hop it waits for.
      const uint8_t either = moved[entry.prefetch] | moved[entry.staging_prefetch];
      moved[entry.prefetch] = either;
      moved[entry.staging_prefetch] = either;
      out.tier_copies[entry.staging_copy].bytes = reserved_bytes;
    }
    out.residency[entry.block].first_step = entry.boundary;
    out.residency[entry.block].bytes = reserved_bytes;
    if (held > 0) {
      ResidentInterval block;
      block.value = entry.operand.value;
      block.first_step = 0;
      block.last_step = last_step;
      block.bytes = held * entry.operand.slice_bytes;
      block.experts = resident[i];
      out.residency.push_back(std::move(block));
    }
  }
  Resequence(out, moved);
  return out;
}

namespace {

// Whether `candidate` is the better plan: it fits where `current` does not, or both fit and it
// is faster (ties: fewer bytes moved).
bool Better(const EvaluatedPlan& candidate, const EvaluatedPlan& current) {
  if (candidate.evaluation.fits != current.evaluation.fits) return candidate.evaluation.fits;
  const SimulationResult& a = candidate.evaluation.timeline;
  const SimulationResult& b = current.evaluation.timeline;
  return std::make_tuple(a.makespan_ns, a.total_bytes_moved()) <
         std::make_tuple(b.makespan_ns, b.total_bytes_moved());
}

}  // namespace

int64_t StreamedPartBytes(const Graph& graph, const std::vector<NodeId>& nodes,
                          int64_t weight_bytes) {
  int64_t bytes = weight_bytes;
  for (NodeId node : nodes) {
    for (ValueId input : graph.nodes[node].inputs) {
      const std::optional<RoutedOperand> operand = RoutedOperandOf(graph, node, input);
      if (operand) bytes -= graph.values[input].bytes - ExpectedRoutedBytes(*operand, {});
    }
  }
  return std::max<int64_t>(0, bytes);
}

double RoutedNsPerByte(const HardwareProfile& profile, const Plan& plan,
                       const StreamedOperand& entry) {
  double ns_per_byte = 0;
  for (int32_t step : {entry.prefetch, entry.staging_prefetch}) {
    if (step < 0) continue;
    const int32_t link = plan.steps[step].link;
    if (link < 0 || static_cast<size_t>(link) >= profile.links.size()) continue;
    const double bandwidth = static_cast<double>(profile.links[link].bandwidth_bytes_per_s);
    if (bandwidth > 0) ns_per_byte += 1e9 / bandwidth;
  }
  return ns_per_byte;
}

std::vector<std::vector<int32_t>> ChooseResident(const std::vector<StreamedOperand>& streamed,
                                                 const std::vector<double>& ns_per_byte,
                                                 int64_t room_bytes) {
  struct Choice {
    double saved;  // expected ns saved per byte held
    size_t operand;
    int32_t expert;
  };
  std::vector<Choice> choices;
  for (size_t i = 0; i < streamed.size(); ++i) {
    const std::vector<double> touch = TouchProbabilities(streamed[i].operand.routing);
    for (size_t e = 0; e < touch.size(); ++e) {
      choices.push_back({touch[e] * ns_per_byte[i], i, static_cast<int32_t>(e)});
    }
  }
  std::stable_sort(choices.begin(), choices.end(), [](const Choice& a, const Choice& b) {
    return std::tie(b.saved, a.operand, a.expert) < std::tie(a.saved, b.operand, b.expert);
  });
  std::vector<std::vector<int32_t>> resident(streamed.size());
  for (const Choice& choice : choices) {
    const RoutedOperand& operand = streamed[choice.operand].operand;
    std::vector<int32_t>& held = resident[choice.operand];
    if (operand.slice_bytes > room_bytes ||
        static_cast<int64_t>(held.size()) + 1 >= operand.routing.experts) {
      continue;
    }
    held.push_back(choice.expert);
    room_bytes -= operand.slice_bytes;
  }
  for (std::vector<int32_t>& held : resident) std::sort(held.begin(), held.end());
  return resident;
}

bool RewrittenAfterRoute(const Graph& graph, const PlanOptions& options, const Plan& plan) {
  return options.offload && options.route_fetch && !FindStreamedOperands(graph, plan).empty();
}

PlanResult PlaceExpertsAfterRoute(const Problem& problem, const PlanOptions& options,
                                  PlanResult planned) {
  const Graph& graph = *problem.graph;
  const HardwareProfile& profile = *problem.profile;
  if (!options.offload || !options.route_fetch) return planned;
  const std::vector<StreamedOperand> streamed = FindStreamedOperands(graph, planned.plan);
  if (streamed.empty()) return planned;
  const NoOffloadReference reference{planned.evaluation.summary.baseline_peak_bytes,
                                     planned.evaluation.summary.baseline_arena_bytes};
  const std::vector<std::vector<int32_t>> none(streamed.size());
  const std::vector<StreamedWeight> weights =
      FindStreamedWeights(graph, FetchAfterRoute(planned.plan, streamed, none));
  auto finish = [&](const std::vector<std::vector<int32_t>>& resident,
                    const std::vector<ValueId>& held) {
    return FinishPlan(graph, profile, options.layout, reference,
                      HoldWeights(graph, FetchAfterRoute(planned.plan, streamed, resident), held));
  };
  EvaluatedPlan best = finish(none, {});
  const int64_t capacity_bytes = profile.tiers[profile.device_tier].capacity_bytes;
  const int64_t budget_bytes = planned.plan.budget_bytes.value_or(capacity_bytes);
  int64_t room_bytes = budget_bytes > 0 ? budget_bytes - best.plan.layout.live_peak_bytes : 0;
  std::vector<double> ns_per_byte;
  for (const StreamedOperand& entry : streamed) {
    ns_per_byte.push_back(RoutedNsPerByte(profile, planned.plan, entry));
  }
  for (int attempt = 0; attempt < kRoomAttempts && room_bytes > 0; ++attempt, room_bytes /= 2) {
    // Weights streamed whole save all their bytes per byte held, experts the chance a token
    // touches them: the weights take the room first.
    const std::vector<ValueId> held = ChooseHeldWeights(weights, room_bytes);
    const std::vector<std::vector<int32_t>> resident =
        ChooseResident(streamed, ns_per_byte, room_bytes - HeldBytes(graph, held));
    if (held.empty() &&
        std::all_of(resident.begin(), resident.end(), [](const auto& h) { return h.empty(); })) {
      break;
    }
    EvaluatedPlan candidate = finish(resident, held);
    if (!candidate.evaluation.fits) continue;
    if (Better(candidate, best)) best = std::move(candidate);
    break;
  }
  if (!Better(best, planned)) return planned;
  best.evaluation.cold_start = ComputeColdStart(graph, profile, problem.homes, best.plan);
  planned.status = best.evaluation.fits ? PlanStatus::kPlanned : planned.status;
  planned.plan = std::move(best.plan);
  planned.evaluation = std::move(best.evaluation);
  return planned;
}

}  // namespace hyperplan::planner
