// Plan inputs shared by `verify`, `simulate` and `run`: a plan file, the model it was made for and
// a profile, loaded and matched.
//
// Order: read the plan (truncated, foreign or newer plans fail here, exit 8), refuse --dim
// values other than the plan's (exit 8), hash the model and compare with the plan's record;
// a model with another digest is accepted only when hyperplan rewrote it from this plan at
// these dims (onnx_rewrite/model_binding.h; else exit 8); take the profile (--hw, or the one
// recorded in the plan, said on stderr unless -q), import the model with the plan's own dims and
// class rules (a rewritten model read through its cache operators), map the plan's tiers and links
// onto the profile by name (a missing tier: exit 5), and convert.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/plan.h"
#include "schemas/plan.pb.h"

namespace hyperplan::cli {

struct PlanInputFlags {
  std::string plan_path;
  std::string model_path;
  std::string profile_path;            // empty: the profile recorded in the plan
  std::vector<std::string> dim_flags;  // --dim NAME=VALUE: the dims the model runs at
};

// Adds the positional plan, --model, --hw (optional: run, simulate and verify all default to
// the profile recorded in the plan) and --dim.
void AddPlanInputFlags(CLI::App& command, PlanInputFlags& flags);

struct PlanInputs {
  plan::v1::Plan message;
  Graph graph;
  HardwareProfile profile;
  Plan plan;
  PlanEvaluation recorded;  // the evaluation the file records for `plan` (not replayed)
  // Without --hw: "profile 'X' as recorded in PLAN (--hw picks another)", said by
  // SayRecordedProfile once the command has succeeded (an error stays one line).
  std::string recorded_profile_note;
};

// `fold_channels`: see planio::FromProtoOptions.
PlanInputs LoadPlanInputs(const PlanInputFlags& flags, bool fold_channels);

// Re-estimates the plan's node times on its profile, on the graph the plan was made on (the
// loop graph of a periodic plan, where in-place updates charge what they change), as
// `simulate` replays them and `run --timed` holds steps for; a host step's on the host unit.
void EstimateNodeTimes(PlanInputs& inputs);

// Prints the recorded-profile note on stderr, unless -q or --hw was given.
void SayRecordedProfile(const PlanInputs& inputs);

}  // namespace hyperplan::cli
