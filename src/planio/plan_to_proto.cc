// Core Plan -> schemas/plan.proto (see plan_to_proto.h).
#include "planio/plan_to_proto.h"

#include <algorithm>

#include "planio/plan_file.h"
#include "planio/profile_proto.h"
#include "planio/proto_enums.h"

namespace hyperplan::planio {
namespace {

bool IsTransfer(StepKind kind) { return kind == StepKind::kPrefetch || kind == StepKind::kStore; }

void AddProvenance(const Graph& graph, const PlanProvenance& in, pb::Provenance& out) {
  out.set_tool("hyperplan");
  out.set_tool_version(in.tool_version);
  out.set_model_path(in.model_path);
  out.set_model_sha256(in.model_sha256);
  out.set_model_file_bytes(in.model_file_bytes);
  out.set_graph_name(graph.name);
  for (const auto& [name, size] : graph.bound_dims) {
    pb::BoundDim* dim = out.add_bound_dims();
    dim->set_name(name);
    dim->set_value(size);
  }
  pb::Options* options = out.mutable_options();
  options->set_offload(in.options.offload);
  if (in.options.budget_bytes) options->set_budget_bytes(*in.options.budget_bytes);
  options->set_max_overhead_ppm(in.options.max_overhead_ppm);
  options->set_max_overhead_given(in.max_overhead_given);
  options->set_allow_reorder(in.options.allow_reorder);
  options->set_single_run(in.options.single_run);
  options->set_device_only(!in.options.host_compute);
  options->set_no_route_fetch(!in.options.route_fetch);
  for (const std::string& rule : in.alias_rules) options->add_alias_rules(rule);
  if (in.align_bytes) options->set_align_bytes(*in.align_bytes);
  pb::LayoutKnobs* layout = options->mutable_layout();
  layout->set_all_orders_limit(static_cast<int64_t>(in.options.layout.all_orders_limit));
  layout->set_shaken_limit(static_cast<int64_t>(in.options.layout.shaken_limit));
  layout->set_shaken_trials(static_cast<int32_t>(in.options.layout.shaken_trials));
  layout->set_greedy(in.options.layout.greedy);
  for (const ClassRule& rule : in.cli_class_rules) {
    pb::ClassRule* entry = options->add_class_rules();
    entry->set_value_class(ToProto(rule.value_class));
    entry->set_regex(rule.regex);
  }
}

void AddValues(const Graph& graph, const HardwareProfile& profile, const Plan& plan,
               pb::Plan& out) {
  const size_t count = graph.values.size();
  std::vector<TierId> home(count, profile.device_tier);
  std::vector<bool> at_start(count, false);
  std::vector<bool> moved(count, false);
  for (const TierCopy& copy : plan.tier_copies) {
    if (copy.opened_by < 0) home[copy.value] = copy.tier;
  }
  for (const ResidentInterval& interval : plan.residency) {
    if (interval.value != kNoValue && interval.opened_by < 0) at_start[interval.value] = true;
  }
  for (const PlanStep& step : plan.steps) {
    if (step.kind != StepKind::kCompute) moved[step.value] = true;
  }
  for (size_t id = 0; id < count; ++id) {
    const Value& value = graph.values[id];
    pb::Value* entry = out.add_values();
    entry->set_name(value.name);
    entry->set_value_class(ToProto(value.value_class));
    entry->set_dtype(std::string(DTypeName(value.dtype)));
    for (int64_t dim : value.shape) entry->add_shape(dim);
    entry->set_size_known(value.size_known);
    entry->set_bytes(value.bytes);
    entry->set_home_tier(home[id]);
    entry->set_resident_at_start(at_start[id]);
    entry->set_offloaded(moved[id]);
  }
}

void AddNodes(const Graph& graph, const Plan& plan, const PlanEvaluation& evaluation,
              pb::Plan& out) {
  for (size_t id = 0; id < graph.nodes.size(); ++id) {
    const Node& node = graph.nodes[id];
    pb::Node* entry = out.add_nodes();
    entry->set_name(node.name);
    entry->set_op_type(node.op_type);
    entry->set_domain(node.domain);
    for (ValueId input : node.inputs) entry->add_inputs(input);
    for (ValueId output : node.outputs) entry->add_outputs(output);
    entry->set_time_ns(id < plan.node_time_ns.size() ? plan.node_time_ns[id] : 0);
    const auto& stalls = evaluation.timeline.stall_ns_per_node;
    entry->set_stall_ns(id < stalls.size() ? stalls[id] : 0);
  }
  for (NodeId node : plan.order) out.add_order(node);
}

// A later chunk of a chunked Prefetch (offset above 0) names its first chunk; a whole transfer
// and a first chunk leave both fields out.
void AddChunkFields(const PlanStep& step, pb::Step& entry) {
  if (step.chunk_offset_bytes == 0) return;
  entry.set_chunk_offset_bytes(step.chunk_offset_bytes);
  entry.set_chunk_of(step.chunk_of);
}

void AddSteps(const HardwareProfile& profile, const Plan& plan, const PlanEvaluation& evaluation,
              pb::Plan& out) {
  const StreamNumbering streams(profile);
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const PlanStep& step = plan.steps[i];
    pb::Step* entry = out.add_steps();
    entry->set_kind(ToProto(step.kind));
    entry->set_node(step.kind == StepKind::kCompute ? step.node : kNoNode);
    entry->set_value(step.kind == StepKind::kCompute ? kNoValue : step.value);
    entry->set_src_tier(step.src_tier);
    entry->set_dst_tier(step.dst_tier);
    entry->set_link(IsTransfer(step.kind) ? step.link : -1);
    entry->set_channel(IsTransfer(step.kind) ? step.channel : -1);
    entry->set_stream(streams.Of(step));
    entry->set_bytes(step.bytes);
    entry->set_boundary(step.boundary);
    for (int32_t wait : step.waits_for) entry->add_waits_for(wait);
    if (i < evaluation.timeline.steps.size()) {
      entry->set_start_ns(evaluation.timeline.steps[i].start_ns);
      entry->set_end_ns(evaluation.timeline.steps[i].end_ns);
    }
    entry->set_planned_start_ns(step.planned_start_ns);
    entry->set_planned_end_ns(step.planned_end_ns);
    if (step.kind == StepKind::kCompute && step.unit == ComputeUnit::kHost) {
      entry->set_unit(pb::COMPUTE_UNIT_HOST);
      entry->set_device_time_ns(step.device_time_ns);
    }
    if (step.routed_by != kNoNode) {
      entry->set_routed_by(step.routed_by);
      entry->set_reserved_bytes(step.reserved_bytes);
    }
    AddChunkFields(step, *entry);
  }
}

bool RunsOnHost(const Plan& plan) {
  return std::any_of(plan.steps.begin(), plan.steps.end(), [](const PlanStep& step) {
    return step.kind == StepKind::kCompute && step.unit == ComputeUnit::kHost;
  });
}

// Only a plan that computes on the host names the lane (and reads as format 1.2), so every
// plan without host steps stays byte-identical to what format 1.1 wrote.
void AddHostLane(const HardwareProfile& profile, const Plan& plan, pb::Plan& out) {
  if (!RunsOnHost(plan)) return;
  out.mutable_format()->set_minor(kPlanFormatHostMinor);
  pb::HostLane* lane = out.mutable_host_lane();
  lane->set_stream(StreamNumbering(profile).host_lane());
  lane->set_memory_tier(profile.host_compute.memory_tier);
  const HostComputeSpec& host = profile.host_compute;
  lane->set_name("host (" + std::to_string(host.sockets) + " socket" +
                 (host.sockets == 1 ? ")" : "s)"));
  lane->set_sockets(host.sockets);
  lane->set_cores_per_socket(host.cores_per_socket);
  for (const auto& [dtype, flops_per_s] : host.peak_flops_per_s) {
    pb::PeakFlops* peak = lane->add_peak();
    peak->set_dtype(std::string(DTypeName(dtype)));
    peak->set_flops_per_s(flops_per_s);
  }
  lane->set_memory_bandwidth_bytes_per_s(host.memory_bandwidth_bytes_per_s);
  lane->set_efficiency_ppm(host.efficiency_ppm);
  lane->set_memory_efficiency_ppm(host.memory_efficiency_ppm);
  lane->set_share_ppm(host.share_ppm);
  lane->set_op_overhead_ns(host.op_overhead_ns);
}

void AddMemory(const Plan& plan, pb::Plan& out) {
  for (size_t r = 0; r < plan.residency.size(); ++r) {
    const ResidentInterval& interval = plan.residency[r];
    pb::Residency* entry = out.add_residency();
    entry->set_value(interval.value);
    entry->set_scratch_node(interval.scratch_node);
    entry->set_first_step(interval.first_step);
    entry->set_last_step(interval.last_step);
    entry->set_bytes(interval.bytes);
    const auto& offsets = plan.layout.offset_bytes;
    entry->set_offset_bytes(r < offsets.size() ? offsets[r] : 0);
    entry->set_opened_by(interval.opened_by);
    entry->set_closed_by(interval.closed_by);
    for (int32_t expert : interval.experts) entry->add_experts(expert);
  }
  for (const TierCopy& copy : plan.tier_copies) {
    pb::TierCopy* entry = out.add_tier_copies();
    entry->set_value(copy.value);
    entry->set_tier(copy.tier);
    entry->set_bytes(copy.bytes);
    entry->set_opened_by(copy.opened_by);
    entry->set_closed_by(copy.closed_by);
    entry->set_offset_bytes(copy.offset_bytes);
  }
  for (const TierBuffer& buffer : plan.tier_buffers) {
    pb::TierBuffer* entry = out.add_tier_buffers();
    entry->set_tier(buffer.tier);
    entry->set_size_bytes(buffer.size_bytes);
    entry->set_live_peak_bytes(buffer.live_peak_bytes);
    entry->set_alignment_bytes(buffer.alignment_bytes);
    entry->set_algorithm(buffer.algorithm);
  }
  pb::Arena* arena = out.mutable_arena();
  arena->set_size_bytes(plan.layout.arena_bytes);
  arena->set_live_peak_bytes(plan.layout.live_peak_bytes);
  arena->set_live_peak_step(plan.layout.live_peak_step);
  arena->set_algorithm(plan.layout.algorithm);
  arena->set_alignment_bytes(plan.layout.alignment_bytes);
}

void AddSummary(const HardwareProfile& profile, const PlanEvaluation& evaluation, pb::Plan& out) {
  const PlanSummary& in = evaluation.summary;
  pb::Summary* summary = out.mutable_summary();
  summary->set_baseline_peak_bytes(in.baseline_peak_bytes);
  summary->set_baseline_arena_bytes(in.baseline_arena_bytes);
  summary->set_peak_bytes(in.peak_bytes);
  summary->set_arena_bytes(in.arena_bytes);
  summary->set_live_lower_bound_bytes(in.live_lower_bound_bytes);
  summary->set_baseline_makespan_ns(in.baseline_makespan_ns);
  summary->set_makespan_ns(in.makespan_ns);
  summary->set_stall_ns(in.stall_ns);
  summary->set_compute_ns(evaluation.timeline.compute_ns);
  summary->set_compute_steps(in.steps_per_kind[static_cast<size_t>(StepKind::kCompute)]);
  summary->set_prefetch_steps(in.steps_per_kind[static_cast<size_t>(StepKind::kPrefetch)]);
  summary->set_store_steps(in.steps_per_kind[static_cast<size_t>(StepKind::kStore)]);
  summary->set_detach_steps(in.steps_per_kind[static_cast<size_t>(StepKind::kDetach)]);
  summary->set_offloaded_values(in.offloaded_values);
  for (size_t l = 0; l < profile.links.size(); ++l) {
    pb::LinkTraffic* traffic = summary->add_links();
    traffic->set_link(static_cast<int32_t>(l));
    traffic->set_bytes_moved(l < in.bytes_moved_per_link.size() ? in.bytes_moved_per_link[l] : 0);
  }
  for (size_t t = 0; t < profile.tiers.size(); ++t) {
    pb::TierPeak* peak = summary->add_tiers();
    peak->set_tier(static_cast<int32_t>(t));
    const auto& peaks = evaluation.timeline.peak_bytes_per_tier;
    peak->set_peak_bytes(t < peaks.size() ? peaks[t] : 0);
  }
}

void AddDecisions(const Plan& plan, pb::Plan& out) {
  for (const Decision& decision : plan.decisions) {
    pb::Decision* entry = out.add_decisions();
    entry->set_value(decision.value);
    entry->set_gap_after_step(decision.gap_after_step);
    entry->set_gap_before_step(decision.gap_before_step);
    entry->set_tier(decision.tier);
    entry->set_reason(ToProto(decision.reason));
    entry->set_detail(decision.detail);
    entry->set_bytes(decision.bytes);
    entry->set_gap_ns(decision.gap_ns);
    entry->set_transfer_ns(decision.transfer_ns);
    entry->set_freed_first_step(decision.freed_first_step);
    entry->set_freed_last_step(decision.freed_last_step);
    entry->set_predicted_stall_ns(decision.predicted_stall_ns);
  }
}

// A tier is used when something lives on it; a link when a step moves bytes on it.
void MarkUsed(const HardwareProfile& profile, const Plan& plan, pb::Plan& out) {
  if (!plan.residency.empty()) out.mutable_tiers(profile.device_tier)->set_used(true);
  for (const TierCopy& copy : plan.tier_copies) out.mutable_tiers(copy.tier)->set_used(true);
  for (const PlanStep& step : plan.steps) {
    if (!IsTransfer(step.kind)) continue;
    out.mutable_links(step.link)->set_used(true);
    out.mutable_tiers(step.src_tier)->set_used(true);
    out.mutable_tiers(step.dst_tier)->set_used(true);
  }
}

void AddLoop(const HardwareProfile& profile, const Plan& plan, const PlanEvaluation& evaluation,
             pb::Plan& out) {
  out.set_produced_by(plan.produced_by);
  out.set_periodic(plan.periodic);
  if (!plan.periodic) return;
  for (const ValueAlias& alias : plan.aliases) {
    pb::Alias* entry = out.add_aliases();
    entry->set_out_value(alias.out_value);
    entry->set_in_value(alias.in_value);
  }
  pb::ColdStart* cold = out.mutable_cold_start();
  for (size_t tier = 0; tier < profile.tiers.size(); ++tier) {
    pb::TierBytes* entry = cold->add_tiers();
    entry->set_tier(static_cast<int32_t>(tier));
    entry->set_bytes(tier < evaluation.cold_start.bytes_per_tier.size()
                         ? evaluation.cold_start.bytes_per_tier[tier]
                         : 0);
  }
  cold->set_time_ns(evaluation.cold_start.time_ns);
}

}  // namespace

pb::Plan PlanToProto(const Graph& graph, const HardwareProfile& profile, const PlanResult& result,
                     const PlanProvenance& provenance) {
  const Plan& plan = result.plan;
  const PlanEvaluation& evaluation = result.evaluation;
  pb::Plan out;
  pb::FormatVersion* format = out.mutable_format();
  format->set_schema(kPlanSchemaName);
  format->set_major(kPlanFormatMajor);
  format->set_minor(kPlanFormatMinor);
  AddProvenance(graph, provenance, *out.mutable_provenance());
  out.set_status(result.status == PlanStatus::kPlanned ? pb::PLAN_STATUS_PLANNED
                                                       : pb::PLAN_STATUS_INFEASIBLE);
  out.set_offload_enabled(plan.offload_enabled);
  out.set_reordered(plan.reordered);
  out.set_order_name(plan.order_name);
  if (plan.budget_bytes) out.set_budget_bytes(*plan.budget_bytes);
  out.set_fits(evaluation.fits);
  ProfileToProto(profile, out);
  AddValues(graph, profile, plan, out);
  AddNodes(graph, plan, evaluation, out);
  AddSteps(profile, plan, evaluation, out);
  AddHostLane(profile, plan, out);
  // Read as 1.3 only when a Prefetch moves in chunks: a 1.2 reader would move each chunk's
  // bytes from the value's start.
  if (std::any_of(plan.steps.begin(), plan.steps.end(),
                  [](const PlanStep& step) { return step.chunk_of >= 0; })) {
    format->set_minor(kPlanFormatChunkMinor);
  }
  // 1.4 when a Prefetch is routed: a 1.3 reader would move its bytes from the value's start.
  if (std::any_of(plan.steps.begin(), plan.steps.end(),
                  [](const PlanStep& step) { return step.routed_by != kNoNode; })) {
    format->set_minor(kPlanFormatRoutedMinor);
  }
  AddMemory(plan, out);
  AddSummary(profile, evaluation, out);
  AddDecisions(plan, out);
  AddLoop(profile, plan, evaluation, out);
  MarkUsed(profile, plan, out);
  for (const std::string& warning : graph.warnings) out.add_warnings(warning);
  if (result.status == PlanStatus::kInfeasible) out.add_warnings(result.infeasibility.message);
  out.set_complete(true);
  return out;
}

}  // namespace hyperplan::planio
