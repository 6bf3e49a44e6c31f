// One value of the moved dim, planned (see fit_point.h).
#include "fit_point.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <numeric>

#include "contenders/context.h"
#include "contenders/portfolio.h"
#include "expert_stats_flag.h"
#include "fit_llama_cpp.h"
#include "hyperplan/adapters/dim_ties.h"
#include "hyperplan/plan/bottleneck.h"
#include "hyperplan/plan/layer_summary.h"
#include "plan_gate.h"
#include "run_summary.h"
#include "verbosity.h"

namespace hyperplan::cli {
namespace {

using Dims = std::map<std::string, int64_t, std::less<>>;

int64_t TotalBytes(const Graph& graph) {
  int64_t total = 0;
  for (const Value& value : graph.values) total += value.bytes;
  return total;
}

// Elements of the tokens input (batch x new tokens); 0 when the model has no such input.
int64_t TokensPerIteration(const Graph& graph, const std::string& input_name) {
  for (ValueId id : graph.inputs) {
    const Value& value = graph.values[id];
    if (value.name != input_name || !value.size_known) continue;
    return std::accumulate(value.shape.begin(), value.shape.end(), int64_t{1}, std::multiplies<>());
  }
  return 0;
}

LoopSpec Loop(const FitSettings& settings, const Graph& graph) {
  if (settings.single_run) return {};
  return {true, FindAliases(graph, settings.alias_rules)};
}

void SetTokens(const Graph& graph, const FitSettings& settings, fit::v1::FitPoint& point) {
  point.set_tokens_per_iteration(TokensPerIteration(graph, settings.tokens_input));
  if (point.tokens_per_iteration() > 0 && point.time_per_iteration_ns() > 0) {
    point.set_tokens_per_s(static_cast<double>(point.tokens_per_iteration()) * 1e9 /
                           static_cast<double>(point.time_per_iteration_ns()));
  }
}

void RecordBottleneck(const HardwareProfile& profile, const Bottleneck& bottleneck,
                      fit::v1::FitPoint& point) {
  RecordBottleneckShares(profile, bottleneck, point);
  point.set_compute_busy_ns(bottleneck.compute_busy_ns);
}

// Nothing moves: the no-offload plan's numbers, which need no planning.
void RecordUnplanned(const Graph& graph, const FitSettings& settings,
                     const contenders::ContenderContext& context, fit::v1::FitPoint& point) {
  const int64_t compute_ns =
      std::accumulate(context.node_time_ns.begin(), context.node_time_ns.end(), int64_t{0});
  point.set_result("ok");
  point.set_planned(false);
  point.set_fits(true);
  point.set_arena_bytes(context.baseline_arena_bytes);
  point.set_live_lower_bound_bytes(context.baseline_peak_bytes);
  point.set_time_per_iteration_ns(compute_ns);
  point.set_baseline_time_ns(compute_ns);
  RecordBottleneck(
      settings.profile,
      NoOffloadBottleneck(graph, settings.profile, context.node_time_ns, !settings.single_run),
      point);
  for (std::string& arg : LlamaCppArgs(point)) point.add_llama_cpp_args(std::move(arg));  // -ngl
}

void RecordPlan(const Graph& graph, const FitSettings& settings, const PlanResult& result,
                fit::v1::FitPoint& point) {
  const Plan& plan = result.plan;
  const PlanEvaluation& evaluation = result.evaluation;
  const PlanSummary& summary = evaluation.summary;
  const GateOutcome gate =
      EvaluateGate(fmt::format("{}={}", settings.dim, point.value()), result,
                   settings.max_overhead_ppm.value_or(0), settings.max_overhead_ppm.has_value());
  point.set_result(gate.result);
  point.set_message(gate.message);
  point.set_planned(true);
  point.set_fits(result.status == PlanStatus::kPlanned && evaluation.fits);
  point.set_arena_bytes(summary.arena_bytes);
  point.set_live_lower_bound_bytes(summary.live_lower_bound_bytes);
  point.set_time_per_iteration_ns(summary.makespan_ns);
  point.set_baseline_time_ns(summary.baseline_makespan_ns);
  point.set_overhead_ppm(OverheadPpm(summary.makespan_ns, summary.baseline_makespan_ns));
  point.set_stall_ns(summary.stall_ns);
  point.set_cold_start_ns(plan.periodic ? evaluation.cold_start.time_ns : 0);
  const Bottleneck bottleneck = FindBottleneck(graph, settings.profile, plan, evaluation.timeline);
  RecordBottleneck(settings.profile, bottleneck, point);
  int64_t moved = 0;
  for (size_t l = 0; l < summary.bytes_moved_per_link.size(); ++l) {
    if (summary.bytes_moved_per_link[l] == 0) continue;
    moved += summary.bytes_moved_per_link[l];
    const Link& link = settings.profile.links[l];
    fit::v1::LinkBusy* entry = point.add_links();
    entry->set_link(settings.profile.tiers[link.from].name + "->" +
                    settings.profile.tiers[link.to].name);
    entry->set_busy_ns(bottleneck.link_busy_ns[l]);
  }
  point.set_bytes_moved(moved);
  point.set_produced_by(plan.produced_by);
  point.set_residency(DescribeLayerResidency(graph, settings.profile, plan));
  RecordHostPlacement(graph, plan, evaluation.timeline, point);
  RecordResidentExperts(graph, settings.profile, plan, point);
  for (std::string& arg : LlamaCppArgs(point)) point.add_llama_cpp_args(std::move(arg));
}

}  // namespace

FitEvaluator::FitEvaluator(const FitSettings& settings) : settings_(settings) {}

Graph FitEvaluator::ImportAt(int64_t value, Dims& dims) {
  ImportOptions options = settings_.import;
  options.dims[settings_.dim] = value;
  BindTiedDims(settings_.ties, options.dims);
  dims = options.dims;
  // Unbound dims are reported here rather than by the import, after the moved dim is checked:
  // a misspelt --grow leaves the real dim unbound, and the misspelling is the news.
  options.allow_unbound_dims = true;
  Graph graph = settings_.model->Import(options);
  const bool first = !first_sizes_;
  CheckMovedDim(graph, value);
  if (!graph.unbound_dims.empty()) {
    const std::string& name = graph.unbound_dims.front().name;
    throw Error(ErrorKind::kModel,
                fmt::format("{}: {}; or, if it moves with {}, tie it: --tie {}=EXPRESSION",
                            settings_.model_path, UnboundDimsProblem(graph.unbound_dims),
                            settings_.dim, name));
  }
  // After the dims: an expert Gather is recognised by its indices' size.
  ApplyExpertStats(settings_.expert_stats_path, graph);
  LogNewDiagnostics(graph, first);
  return graph;
}

// Each distinct warning once (a tie that breaks shapes only at larger values warns then);
// notes, which name sizes, from the first import only.
void FitEvaluator::LogNewDiagnostics(const Graph& graph, bool first) {
  std::vector<std::string> warnings;
  for (const std::string& warning : graph.warnings) {
    if (logged_warnings_.insert(warning).second) warnings.push_back(warning);
  }
  LogDiagnostics(settings_.model_path, warnings, first ? graph.notes : std::vector<std::string>{});
}

// The moved dim must be one the model names and one its sizes depend on; otherwise every
// value plans alike and the search would run to its ceiling.
void FitEvaluator::CheckMovedDim(const Graph& graph, int64_t value) {
  if (!graph.bound_dims.count(settings_.dim)) {
    const std::string prefix = "--dim " + settings_.dim + ":";
    for (const std::string& warning : graph.warnings) {
      if (warning.rfind(prefix, 0) == 0) {
        throw Error(ErrorKind::kUsage, settings_.dim_flag + warning.substr(5));
      }
    }
    throw Error(ErrorKind::kUsage, fmt::format("{} {}: the model has no dimension of that name",
                                               settings_.dim_flag, settings_.dim));
  }
  const int64_t total_bytes = TotalBytes(graph);
  if (!first_sizes_) {
    first_sizes_ = {value, total_bytes};
  } else if (first_sizes_->first != value && first_sizes_->second == total_bytes) {
    throw Error(
        ErrorKind::kUsage,
        fmt::format("{} {}: no size in the model changes between {}={} and {}={} (the model "
                    "computes it from other dims, or nothing depends on it): move a "
                    "dim its graph inputs carry",
                    settings_.dim_flag, settings_.dim, settings_.dim, first_sizes_->first,
                    settings_.dim, value));
  }
}

const fit::v1::FitPoint& FitEvaluator::Evaluate(int64_t value, bool need_plan) {
  auto known = points_.find(value);
  if (known != points_.end() && (known->second.planned() || !need_plan)) return known->second;
  try {
    return points_[value] = Measure(value, need_plan);
  } catch (const Error& error) {
    if (error.kind() == ErrorKind::kUsage) throw;
    throw Error(error.kind(), fmt::format("{} (at {}={})", error.what(), settings_.dim, value));
  }
}

KvCacheShapes FitEvaluator::KvCacheShapesAt(int64_t value) {
  Dims dims;
  return KvCacheShapesOf(ImportAt(value, dims));
}

fit::v1::FitPoint FitEvaluator::Measure(int64_t value, bool need_plan) {
  fit::v1::FitPoint point;
  point.set_value(value);
  Dims dims;
  const auto start = std::chrono::steady_clock::now();
  const Graph graph = ImportAt(value, dims);
  const auto imported = std::chrono::steady_clock::now();
  for (const auto& [name, bound] : dims) {
    fit::v1::BoundDim* entry = point.add_dims();
    entry->set_name(name);
    entry->set_value(bound);
  }
  const LoopSpec loop = Loop(settings_, graph);
  bool planned = need_plan;
  if (!need_plan) {
    const contenders::ContenderContext context =
        contenders::BuildContenderContext(graph, settings_.profile, {}, loop);
    if (context.baseline_arena_bytes <= settings_.budget_bytes) {
      RecordUnplanned(graph, settings_, context, point);
    } else {
      planned = true;
    }
  }
  if (planned) {
    PlanOptions options;
    options.budget_bytes = settings_.budget_bytes;
    if (settings_.max_overhead_ppm) options.max_overhead_ppm = *settings_.max_overhead_ppm;
    options.single_run = settings_.single_run;
    options.host_compute = settings_.host_compute;
    options.aliases = loop.aliases;
    RecordPlan(graph, settings_, contenders::PlanBest(graph, settings_.profile, options), point);
    ++plans_;
  }
  SetTokens(graph, settings_, point);
  const std::chrono::duration<double> import_s = imported - start;
  const std::chrono::duration<double> decide_s = std::chrono::steady_clock::now() - imported;
  spdlog::info("{}={}: imported in {:.2f} s, {} in {:.2f} s: {}", settings_.dim, value,
               import_s.count(), planned ? "planned" : "no-offload arena", decide_s.count(),
               point.result());
  return point;
}

bool Passes(const fit::v1::FitPoint& point) { return point.result() == "ok"; }

ErrorKind FailureKind(const fit::v1::FitPoint& point) {
  return point.result() == "over_overhead" ? ErrorKind::kGateFailed : ErrorKind::kInfeasible;
}

}  // namespace hyperplan::cli
