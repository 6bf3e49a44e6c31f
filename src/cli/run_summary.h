// The line `plan --summary-json` prints (schemas/plan.proto RunSummary), on every exit.
//
// The RunSummary message is filled as the run learns things: the model path at the start, the
// profile once loaded, the plan's numbers once planned (RecordPlan), the gate's verdict
// (RecordGate) or the error that ended the run (RecordFailure). So a gate that reads the line
// finds it whatever happened, with `ok`, the exit code, the error kind and message, and what
// was known when the run stopped. Cost: a copy of the summary numbers.
#pragma once

#include <string>

#include "hyperplan/error.h"
#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/plan/bottleneck.h"
#include "hyperplan/plan/expert_residency.h"
#include "hyperplan/plan/host_placement.h"
#include "plan_gate.h"
#include "schemas/plan.pb.h"

namespace hyperplan::cli {

// The plan's numbers (planned = true); `plan_sha256` is planio::PlanSha256 of the plan.
void RecordPlan(const plan::v1::Plan& plan, const std::string& plan_sha256,
                plan::v1::RunSummary& summary);

// The bottleneck's name and its shares of the iteration (bottleneck.h), in the fields that
// plan's RunSummary and fit's FitPoint both carry under the same names.
template <typename Message>
void RecordBottleneckShares(const HardwareProfile& profile, const Bottleneck& bottleneck,
                            Message& message) {
  message.set_bottleneck(BottleneckName(profile, bottleneck));
  message.set_bottleneck_busy_ns(bottleneck.busy_ns);
  message.set_flops_ns(bottleneck.flops_ns);
  message.set_hbm_traffic_ns(bottleneck.hbm_traffic_ns);
  message.set_launch_ns(bottleneck.launch_ns);
  message.set_compute_wait_ns(bottleneck.compute_wait_ns);
  message.set_host_memory_ns(bottleneck.host_memory_ns);
  message.set_host_flops_ns(bottleneck.host_flops_ns);
}

// What runs on the host (host_placement.h), in the fields plan's RunSummary and fit's FitPoint
// both carry under the same names; nothing for a plan all on the device.
template <typename Message>
void RecordHostPlacement(const Graph& graph, const Plan& plan, const SimulationResult& timeline,
                         Message& message) {
  const HostPlacement placement = FindHostPlacement(graph, plan);
  if (placement.empty()) return;
  message.set_host_compute_ns(timeline.host_compute_ns);
  message.set_host_nodes(placement.host_nodes);
  for (const auto& [layer, parts] : placement.layer_parts) {
    auto* entry = message.add_host_layers();
    entry->set_layer(layer);
    for (std::string& part : HostLayerPartList(parts)) entry->add_parts(std::move(part));
  }
  if (placement.embedding) message.add_host_parts("embedding");
  if (placement.lm_head) message.add_host_parts("LM head");
  for (const std::string& name : placement.other_weights) message.add_host_parts(name);
}

// Resident experts per MoE layer (expert_residency.h) in the field plan's RunSummary and fit's
// FitPoint both carry; nothing without a routed Prefetch.
template <typename Message>
void RecordResidentExperts(const Graph& graph, const HardwareProfile& profile, const Plan& plan,
                           Message& message) {
  for (const MoeLayerExperts& layer : FindResidentExperts(graph, profile, plan)) {
    auto* entry = message.add_moe_experts();
    entry->set_layer(layer.layer);
    entry->set_experts(layer.experts);
    entry->set_resident(layer.resident);
  }
}

// What bounds the plan's iteration (bottleneck.h), for the fields it documents.
void RecordBottleneck(const HardwareProfile& profile, const Bottleneck& bottleneck,
                      plan::v1::RunSummary& summary);
// How many attention blocks the model spells out, and whether the profile costs them fused.
void RecordAttention(const Graph& graph, const HardwareProfile& profile,
                     plan::v1::RunSummary& summary);

// The run ended at the gate: ok, over budget (6) or over the overhead target (7).
void RecordGate(const GateOutcome& gate, plan::v1::RunSummary& summary);

// The run ended with an error of `kind`; what was recorded before stays.
void RecordFailure(ErrorKind kind, const std::string& message, plan::v1::RunSummary& summary);

// The summary as one JSON line, newline included.
std::string SummaryLine(const plan::v1::RunSummary& summary);

}  // namespace hyperplan::cli
