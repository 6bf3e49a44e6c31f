// A core Plan as a schemas/plan.proto message, with its provenance.
//
// Everything a runtime follows is written out (steps with streams and waits, residency with
// arena offsets, off-device copies, predicted times) plus what explains the plan (decisions
// with reasons, the summary, the profile and options it was made with). Not written: the
// per-tier memory curves of the timeline, which a replay of the steps reproduces.
// Cost: linear in the plan and the graph.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/planner/options.h"
#include "hyperplan/planner/planner.h"
#include "schemas/plan.pb.h"

namespace hyperplan::planio {

// What the plan was made from, beyond the graph and the profile.
struct PlanProvenance {
  std::string tool_version;
  std::string model_path;    // as given
  std::string model_sha256;  // of the model file
  int64_t model_file_bytes = 0;
  PlanOptions options;  // node_time_ns is not recorded (the nodes carry their times)
  bool max_overhead_given = false;
  std::vector<std::string> alias_rules;    // --alias as given ("OUT=IN")
  std::vector<ClassRule> cli_class_rules;  // --class rules, before the profile's
  std::optional<int64_t> align_bytes;      // --align, when given
};

plan::v1::Plan PlanToProto(const Graph& graph, const HardwareProfile& profile,
                           const PlanResult& result, const PlanProvenance& provenance);

}  // namespace hyperplan::planio
