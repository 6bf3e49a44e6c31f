// schemas/plan.proto -> core Plan (see plan_from_proto.h).
#include "planio/plan_from_proto.h"

#include <algorithm>
#include <unordered_map>

#include "hyperplan/classify.h"
#include "hyperplan/error.h"
#include "planio/proto_enums.h"

namespace hyperplan::planio {
namespace {

bool IsTransfer(StepKind kind) { return kind == StepKind::kPrefetch || kind == StepKind::kStore; }

// Resolves the plan's indices to the graph's and the profile's, failing with the field's path.
class Resolver {
 public:
  Resolver(const pb::Plan& plan, const std::string& plan_path, const Graph& graph,
           const HardwareProfile& profile, const ProfileMapping& mapping)
      : plan_(plan), path_(plan_path), graph_(graph), profile_(profile), mapping_(mapping) {}

  [[noreturn]] void Fail(const std::string& field, const std::string& what) const {
    throw Error(ErrorKind::kPlanFile, path_ + ": " + field + ": " + what);
  }

  void ResolveNames() {
    if (plan_.nodes_size() != static_cast<int>(graph_.nodes.size()) ||
        plan_.values_size() != static_cast<int>(graph_.values.size())) {
      Fail("nodes/values", "the plan has " + std::to_string(plan_.nodes_size()) + " nodes and " +
                               std::to_string(plan_.values_size()) + " values, the model " +
                               std::to_string(graph_.nodes.size()) + " and " +
                               std::to_string(graph_.values.size()));
    }
    std::unordered_map<std::string_view, NodeId> node_ids;
    for (size_t n = 0; n < graph_.nodes.size(); ++n) {
      node_ids.emplace(graph_.nodes[n].name, static_cast<NodeId>(n));
    }
    std::unordered_map<std::string_view, ValueId> value_ids;
    for (size_t v = 0; v < graph_.values.size(); ++v) {
      value_ids.emplace(graph_.values[v].name, static_cast<ValueId>(v));
    }
    node_.resize(plan_.nodes_size());
    std::vector<bool> node_seen(graph_.nodes.size(), false);
    for (int n = 0; n < plan_.nodes_size(); ++n) {
      auto it = node_ids.find(plan_.nodes(n).name());
      const std::string field = "nodes[" + std::to_string(n) + "]";
      if (it == node_ids.end())
        Fail(field, "'" + plan_.nodes(n).name() + "' is not a node of the model");
      if (node_seen[it->second]) Fail(field, "'" + plan_.nodes(n).name() + "' is listed twice");
      node_seen[it->second] = true;
      node_[n] = it->second;
    }
    value_.resize(plan_.values_size());
    std::vector<bool> value_seen(graph_.values.size(), false);
    for (int v = 0; v < plan_.values_size(); ++v) {
      auto it = value_ids.find(plan_.values(v).name());
      const std::string field = "values[" + std::to_string(v) + "]";
      if (it == value_ids.end()) {
        Fail(field, "'" + plan_.values(v).name() + "' is not a value of the model");
      }
      if (value_seen[it->second]) Fail(field, "'" + plan_.values(v).name() + "' is listed twice");
      value_seen[it->second] = true;
      value_[v] = it->second;
    }
  }

  NodeId Node(int32_t index, const std::string& field, bool optional = false) const {
    if (optional && index == -1) return kNoNode;
    if (index < 0 || index >= static_cast<int32_t>(node_.size())) {
      Fail(field, std::to_string(index) + " is not an index into nodes");
    }
    return node_[index];
  }

  ValueId Value(int32_t index, const std::string& field, bool optional = false) const {
    if (optional && index == -1) return kNoValue;
    if (index < 0 || index >= static_cast<int32_t>(value_.size())) {
      Fail(field, std::to_string(index) + " is not an index into values");
    }
    return value_[index];
  }

  // A tier the plan places something on: it must be mapped onto the profile.
  TierId UsedTier(int32_t index, const std::string& field) const {
    if (index < 0 || index >= static_cast<int32_t>(mapping_.tier.size())) {
      Fail(field, std::to_string(index) + " is not an index into tiers");
    }
    if (mapping_.tier[index] == kNoTier) {
      Fail(field, "tier '" + plan_.tiers(index).name() + "' is not marked used");
    }
    return mapping_.tier[index];
  }

  // A tier named only as an explanation (a rejected decision's): by name, or none.
  TierId NamedTier(int32_t index) const {
    if (index < 0 || index >= plan_.tiers_size()) return kNoTier;
    if (mapping_.tier[index] != kNoTier) return mapping_.tier[index];
    return profile_.FindTier(plan_.tiers(index).name());
  }

  int32_t UsedLink(int32_t index, const std::string& field) const {
    if (index < 0 || index >= static_cast<int32_t>(mapping_.link.size())) {
      Fail(field, std::to_string(index) + " is not an index into links");
    }
    if (mapping_.link[index] < 0)
      Fail(field, "link " + std::to_string(index) + " is not marked used");
    return mapping_.link[index];
  }

  int32_t Step(int32_t index, const std::string& field) const {
    if (index < -1 || index >= plan_.steps_size()) {
      Fail(field, std::to_string(index) + " is not an index into steps");
    }
    return index;
  }

  int32_t OrderStep(int32_t index, const std::string& field) const {
    if (index < 0 || index > plan_.order_size()) {
      Fail(field, std::to_string(index) + " is not a position in the order");
    }
    return index;
  }

 private:
  const pb::Plan& plan_;
  const std::string& path_;
  const Graph& graph_;
  const HardwareProfile& profile_;
  const ProfileMapping& mapping_;
  std::vector<NodeId> node_;
  std::vector<ValueId> value_;
};

// A host step needs a profile with a host unit to run on; a unit this build does not know
// (a newer minor's) is named rather than run on the device.
ComputeUnit ConvertUnit(pb::ComputeUnit unit, const std::string& field, const Resolver& resolve,
                        const HardwareProfile& profile) {
  if (unit == pb::COMPUTE_UNIT_DEVICE) return ComputeUnit::kDevice;
  if (unit != pb::COMPUTE_UNIT_HOST) {
    resolve.Fail(field + ".unit", "unknown compute unit " + std::to_string(unit));
  }
  if (!profile.host_compute.present()) {
    throw Error(ErrorKind::kProfile, profile.source + ": the plan runs " + field +
                                         " on the host, but the profile has no host_compute");
  }
  return ComputeUnit::kHost;
}

PlanStep ConvertStep(const pb::Step& in, const std::string& field, const Resolver& resolve,
                     const HardwareProfile& profile, const FromProtoOptions& options) {
  PlanStep step;
  const std::optional<StepKind> kind = FromProto(in.kind());
  if (!kind) resolve.Fail(field + ".kind", "unknown step kind " + std::to_string(in.kind()));
  step.kind = *kind;
  if (step.kind == StepKind::kCompute) {
    step.node = resolve.Node(in.node(), field + ".node");
    step.unit = ConvertUnit(in.unit(), field, resolve, profile);
    if (step.unit == ComputeUnit::kHost) step.device_time_ns = in.device_time_ns();
  } else {
    step.value = resolve.Value(in.value(), field + ".value");
    step.src_tier = resolve.UsedTier(in.src_tier(), field + ".src_tier");
  }
  if (IsTransfer(step.kind)) {
    step.dst_tier = resolve.UsedTier(in.dst_tier(), field + ".dst_tier");
    step.link = resolve.UsedLink(in.link(), field + ".link");
    const int32_t channels = std::max<int32_t>(1, profile.links[step.link].channels);
    if (in.channel() < 0) resolve.Fail(field + ".channel", "negative channel");
    if (in.channel() >= channels && !options.fold_channels) {
      throw Error(ErrorKind::kProfile,
                  profile.source + ": link " + profile.tiers[profile.links[step.link].from].name +
                      "->" + profile.tiers[profile.links[step.link].to].name + " has " +
                      std::to_string(channels) + " channel(s), but the plan uses channel " +
                      std::to_string(in.channel()));
    }
    step.channel = in.channel() % channels;
  }
  step.bytes = in.bytes();
  step.boundary = resolve.OrderStep(in.boundary(), field + ".boundary");
  for (int w = 0; w < in.waits_for_size(); ++w) {
    step.waits_for.push_back(
        resolve.Step(in.waits_for(w), field + ".waits_for[" + std::to_string(w) + "]"));
  }
  step.planned_start_ns = in.planned_start_ns();
  step.planned_end_ns = in.planned_end_ns();
  if (in.reserved_bytes() > 0) {  // a routed Prefetch (plan.proto Step.routed_by)
    step.routed_by = resolve.Node(in.routed_by(), field + ".routed_by");
    step.reserved_bytes = in.reserved_bytes();
  }
  // Only a later chunk starts past byte 0; the verifier checks the rest (plan/chunks.h).
  step.chunk_offset_bytes = in.chunk_offset_bytes();
  if (step.chunk_offset_bytes > 0) step.chunk_of = in.chunk_of();
  return step;
}

void ConvertMemory(const pb::Plan& in, const Resolver& resolve, Plan& plan) {
  for (int r = 0; r < in.residency_size(); ++r) {
    const pb::Residency& entry = in.residency(r);
    const std::string field = "residency[" + std::to_string(r) + "]";
    ResidentInterval interval;
    interval.value = resolve.Value(entry.value(), field + ".value", true);
    interval.scratch_node = resolve.Node(entry.scratch_node(), field + ".scratch_node", true);
    interval.first_step = resolve.OrderStep(entry.first_step(), field + ".first_step");
    interval.last_step = resolve.OrderStep(entry.last_step(), field + ".last_step");
    interval.bytes = entry.bytes();
    interval.opened_by = resolve.Step(entry.opened_by(), field + ".opened_by");
    interval.closed_by = resolve.Step(entry.closed_by(), field + ".closed_by");
    interval.experts.assign(entry.experts().begin(), entry.experts().end());
    plan.residency.push_back(interval);
    plan.layout.offset_bytes.push_back(entry.offset_bytes());
  }
  for (int c = 0; c < in.tier_copies_size(); ++c) {
    const pb::TierCopy& entry = in.tier_copies(c);
    const std::string field = "tier_copies[" + std::to_string(c) + "]";
    TierCopy copy;
    copy.value = resolve.Value(entry.value(), field + ".value");
    copy.tier = resolve.UsedTier(entry.tier(), field + ".tier");
    copy.bytes = entry.bytes();
    copy.opened_by = resolve.Step(entry.opened_by(), field + ".opened_by");
    copy.closed_by = resolve.Step(entry.closed_by(), field + ".closed_by");
    copy.offset_bytes = entry.offset_bytes();
    plan.tier_copies.push_back(copy);
  }
  for (int b = 0; b < in.tier_buffers_size(); ++b) {
    const pb::TierBuffer& entry = in.tier_buffers(b);
    TierBuffer buffer;
    buffer.tier = resolve.UsedTier(entry.tier(), "tier_buffers[" + std::to_string(b) + "].tier");
    buffer.size_bytes = entry.size_bytes();
    buffer.live_peak_bytes = entry.live_peak_bytes();
    buffer.alignment_bytes = std::max<int64_t>(1, entry.alignment_bytes());
    buffer.algorithm = entry.algorithm();
    plan.tier_buffers.push_back(std::move(buffer));
  }
  plan.layout.arena_bytes = in.arena().size_bytes();
  plan.layout.live_peak_bytes = in.arena().live_peak_bytes();
  plan.layout.live_peak_step = in.arena().live_peak_step();
  plan.layout.algorithm = in.arena().algorithm();
  plan.layout.alignment_bytes = std::max<int64_t>(1, in.arena().alignment_bytes());
}

void ConvertDecisions(const pb::Plan& in, const Resolver& resolve, Plan& plan) {
  for (int d = 0; d < in.decisions_size(); ++d) {
    const pb::Decision& entry = in.decisions(d);
    const std::string field = "decisions[" + std::to_string(d) + "]";
    Decision decision;
    decision.value = resolve.Value(entry.value(), field + ".value");
    decision.gap_after_step = entry.gap_after_step();
    decision.gap_before_step = entry.gap_before_step();
    decision.tier = resolve.NamedTier(entry.tier());
    const std::optional<DecisionReason> reason = FromProto(entry.reason());
    if (!reason)
      resolve.Fail(field + ".reason", "unknown reason " + std::to_string(entry.reason()));
    decision.reason = *reason;
    decision.detail = entry.detail();
    decision.bytes = entry.bytes();
    decision.gap_ns = entry.gap_ns();
    decision.transfer_ns = entry.transfer_ns();
    decision.freed_first_step = entry.freed_first_step();
    decision.freed_last_step = entry.freed_last_step();
    decision.predicted_stall_ns = entry.predicted_stall_ns();
    plan.decisions.push_back(std::move(decision));
  }
}

// The node times into the plan; the recorded timeline into its evaluation.
void ConvertTimeline(const pb::Plan& in, const Resolver& resolve, const Graph& graph,
                     const HardwareProfile& profile, const ProfileMapping& mapping, Plan& plan,
                     PlanEvaluation& evaluation) {
  SimulationResult& timeline = evaluation.timeline;
  for (const pb::Step& step : in.steps())
    timeline.steps.push_back({step.start_ns(), step.end_ns()});
  timeline.stall_ns_per_node.assign(graph.nodes.size(), 0);
  plan.node_time_ns.assign(graph.nodes.size(), 0);
  for (int n = 0; n < in.nodes_size(); ++n) {
    const NodeId node = resolve.Node(n, "nodes");
    timeline.stall_ns_per_node[node] = in.nodes(n).stall_ns();
    plan.node_time_ns[node] = in.nodes(n).time_ns();
  }
  const pb::Summary& summary = in.summary();
  timeline.bytes_moved_per_link.assign(profile.links.size(), 0);
  for (const pb::LinkTraffic& traffic : summary.links()) {
    const bool mapped = traffic.link() >= 0 &&
                        traffic.link() < static_cast<int32_t>(mapping.link.size()) &&
                        mapping.link[traffic.link()] >= 0;
    if (mapped)
      timeline.bytes_moved_per_link[mapping.link[traffic.link()]] += traffic.bytes_moved();
  }
  timeline.peak_bytes_per_tier.assign(profile.tiers.size(), 0);
  for (const pb::TierPeak& peak : summary.tiers()) {
    const bool mapped = peak.tier() >= 0 &&
                        peak.tier() < static_cast<int32_t>(mapping.tier.size()) &&
                        mapping.tier[peak.tier()] != kNoTier;
    if (mapped) timeline.peak_bytes_per_tier[mapping.tier[peak.tier()]] = peak.peak_bytes();
  }
  timeline.makespan_ns = summary.makespan_ns();
  timeline.compute_ns = summary.compute_ns();
  timeline.baseline_makespan_ns = summary.baseline_makespan_ns();
  timeline.stall_ns = summary.stall_ns();
}

// The recorded summary into the evaluation (after ConvertTimeline: the bytes per link are the
// timeline's, mapped onto this profile's links).
void ConvertSummary(const pb::Plan& in, PlanEvaluation& evaluation) {
  const pb::Summary& summary = in.summary();
  static_assert(
      static_cast<int>(StepKind::kCompute) == 0 && static_cast<int>(StepKind::kPrefetch) == 1 &&
      static_cast<int>(StepKind::kStore) == 2 && static_cast<int>(StepKind::kDetach) == 3);
  evaluation.summary = PlanSummary{
      .baseline_peak_bytes = summary.baseline_peak_bytes(),
      .baseline_arena_bytes = summary.baseline_arena_bytes(),
      .peak_bytes = summary.peak_bytes(),
      .arena_bytes = summary.arena_bytes(),
      .live_lower_bound_bytes = summary.live_lower_bound_bytes(),
      .baseline_makespan_ns = summary.baseline_makespan_ns(),
      .makespan_ns = summary.makespan_ns(),
      .stall_ns = summary.stall_ns(),
      .bytes_moved_per_link = evaluation.timeline.bytes_moved_per_link,
      .steps_per_kind = {summary.compute_steps(), summary.prefetch_steps(), summary.store_steps(),
                         summary.detach_steps()},
      .offloaded_values = summary.offloaded_values(),
  };
}

}  // namespace

void CheckModelDigest(const pb::Plan& plan, const std::string& plan_path,
                      const std::string& model_path, const std::string& model_sha256) {
  const std::string& expected = plan.provenance().model_sha256();
  if (expected == model_sha256) return;
  throw Error(ErrorKind::kPlanFile,
              plan_path + ": made for another model: it was planned for sha256 " +
                  expected.substr(0, 16) + "... ('" + plan.provenance().model_path() + "'), but " +
                  model_path + " has sha256 " + model_sha256.substr(0, 16) + "...");
}

ImportOptions ImportOptionsFromProto(const pb::Plan& plan, const std::string& plan_path) {
  ImportOptions options;
  for (const pb::BoundDim& dim : plan.provenance().bound_dims()) {
    options.dims[dim.name()] = dim.value();
  }
  auto add_rules = [&](const auto& rules, const std::string& field) {
    for (const pb::ClassRule& rule : rules) {
      const std::optional<ValueClass> value_class = FromProto(rule.value_class());
      if (!value_class) {
        throw Error(ErrorKind::kPlanFile, plan_path + ": " + field + ": unknown value class");
      }
      if (const std::string problem = ClassPatternError(rule.regex()); !problem.empty()) {
        throw Error(ErrorKind::kPlanFile, plan_path + ": " + field + ": " + problem);
      }
      options.class_rules.push_back({*value_class, rule.regex()});
    }
  };
  add_rules(plan.provenance().options().class_rules(), "provenance.options.class_rules");
  add_rules(plan.provenance().profile().class_rules(), "provenance.profile.class_rules");
  return options;
}

// The aliases into the plan; the recorded cold start into its evaluation.
void ConvertLoop(const pb::Plan& in, const Resolver& resolve, const HardwareProfile& profile,
                 Plan& plan, PlanEvaluation& evaluation) {
  plan.produced_by = in.produced_by();
  plan.periodic = in.periodic();
  for (int i = 0; i < in.aliases_size(); ++i) {
    const std::string field = "aliases[" + std::to_string(i) + "]";
    plan.aliases.push_back({resolve.Value(in.aliases(i).out_value(), field + ".out_value"),
                            resolve.Value(in.aliases(i).in_value(), field + ".in_value")});
  }
  evaluation.cold_start.bytes_per_tier.assign(profile.tiers.size(), 0);
  for (int i = 0; i < in.cold_start().tiers_size(); ++i) {
    const pb::TierBytes& entry = in.cold_start().tiers(i);
    const TierId tier = resolve.NamedTier(entry.tier());  // a replay profile may lack it
    if (tier != kNoTier) evaluation.cold_start.bytes_per_tier[tier] = entry.bytes();
  }
  evaluation.cold_start.time_ns = in.cold_start().time_ns();
}

EvaluatedPlan PlanFromProto(const pb::Plan& in, const std::string& plan_path, const Graph& graph,
                            const HardwareProfile& profile, const ProfileMapping& mapping,
                            const FromProtoOptions& options) {
  Resolver resolve(in, plan_path, graph, profile, mapping);
  resolve.ResolveNames();
  EvaluatedPlan recorded;
  Plan& plan = recorded.plan;
  PlanEvaluation& evaluation = recorded.evaluation;
  for (int k = 0; k < in.order_size(); ++k) {
    plan.order.push_back(resolve.Node(in.order(k), "order[" + std::to_string(k) + "]"));
  }
  plan.reordered = in.reordered();
  // Files from before order_name had only the memory-aware reorder.
  plan.order_name = in.order_name().empty() && plan.reordered ? kMemoryAwareOrder : in.order_name();
  plan.offload_enabled = in.offload_enabled();
  if (in.has_budget_bytes()) plan.budget_bytes = in.budget_bytes();
  evaluation.fits = in.fits();
  for (int i = 0; i < in.steps_size(); ++i) {
    plan.steps.push_back(
        ConvertStep(in.steps(i), "steps[" + std::to_string(i) + "]", resolve, profile, options));
  }
  ConvertMemory(in, resolve, plan);
  ConvertDecisions(in, resolve, plan);
  ConvertTimeline(in, resolve, graph, profile, mapping, plan, evaluation);
  ConvertSummary(in, evaluation);
  ConvertLoop(in, resolve, profile, plan, evaluation);
  return recorded;
}

}  // namespace hyperplan::planio
