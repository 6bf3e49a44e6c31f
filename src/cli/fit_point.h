// One value of the dim `hyperplan fit` moves: imported at that value and planned exactly as
// `hyperplan plan --budget B` plans it (contenders::PlanBest: the planner's plan or a
// contender's, verified), with B the --budget or else the device's capacity, so the fastest
// plan that fits is the one judged. It passes when the plan fits B and, with --max-overhead,
// its time per iteration is within that much of no offloading (plan_gate.h).
//
// Imports copy the model parsed once (ParsedOnnxModel); each value is evaluated at most once
// (a value decided without a plan is planned when its numbers are needed). A value whose
// no-offload arena already fits B passes without planning when the caller allows it: nothing
// has to move, so that plan fits at zero overhead, and none is faster. Cost per value: one
// import, plus one PlanBest (or one no-offload layout). Limits: each distinct warning is
// logged once, notes (-v) from the first import only.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "fit_window.h"
#include "hyperplan/adapters/onnx_import.h"
#include "hyperplan/error.h"
#include "hyperplan/hardware.h"
#include "hyperplan/loop.h"
#include "schemas/fit.pb.h"

namespace hyperplan::cli {

struct FitSettings {
  std::string model_path;
  const ParsedOnnxModel* model = nullptr;
  std::string expert_stats_path;  // --expert-stats, applied to every import (expert_stats_flag.h)
  ImportOptions import;  // the fixed dims and class rules; the moved dim is added per value
  std::vector<std::string> ties;
  std::string dim;       // the moved dim
  std::string dim_flag;  // "--grow" or "--sweep", for messages
  HardwareProfile profile;
  int64_t budget_bytes = 0;                 // --budget capped by the device, or the device
  std::optional<int64_t> max_overhead_ppm;  // the target; unset: none
  bool single_run = false;
  bool host_compute = true;  // false: --device-only
  std::vector<AliasRule> alias_rules;
  std::string tokens_input;  // the graph input whose elements are the tokens of an iteration
};

class FitEvaluator {
 public:
  explicit FitEvaluator(const FitSettings& settings);

  // The point at `value`; `need_plan` false lets a value whose no-offload arena fits pass
  // unplanned. Throws what import and planning throw (the message names the value).
  const fit::v1::FitPoint& Evaluate(int64_t value, bool need_plan);

  // The kv cache's shapes at `value` (fit_window.h): one import, no planning.
  KvCacheShapes KvCacheShapesAt(int64_t value);

  int plans() const { return plans_; }

 private:
  fit::v1::FitPoint Measure(int64_t value, bool need_plan);
  Graph ImportAt(int64_t value, std::map<std::string, int64_t, std::less<>>& dims);
  void CheckMovedDim(const Graph& graph, int64_t value);
  void LogNewDiagnostics(const Graph& graph, bool first);

  const FitSettings& settings_;
  std::map<int64_t, fit::v1::FitPoint> points_;
  std::optional<std::pair<int64_t, int64_t>> first_sizes_;  // value, total bytes
  std::set<std::string> logged_warnings_;
  int plans_ = 0;
};

bool Passes(const fit::v1::FitPoint& point);
// The exit code's kind of a point that does not pass: 6 over budget, 7 over the overhead.
ErrorKind FailureKind(const fit::v1::FitPoint& point);

}  // namespace hyperplan::cli
