// `hyperplan plan` (see plan_command.h).
//
// Order of work: usage checks on the outputs first (extension, never an input file, never
// another output), so a mistake costs nothing; then import (and the same check against the
// model's external-data files), plan, encode; then every output, atomically; then the summary
// on stdout; the gate last, so CI gets the files and the numbers even on a miss. With
// --summary-json the summary line is printed on every exit, whatever stopped the run.
#include "plan_command.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <new>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

#include "contenders/portfolio.h"
#include "expert_stats_flag.h"
#include "files/atomic_write.h"
#include "files/output_guard.h"
#include "hyperplan/attention_pattern.h"
#include "hyperplan/error.h"
#include "hyperplan/loop.h"
#include "hyperplan/plan/bottleneck.h"
#include "hyperplan/plan/summary.h"
#include "hyperplan/planner/planner.h"
#include "hyperplan/units.h"
#include "model_inputs.h"
#include "node_times_flag.h"
#include "onnx_rewrite/rewrite.h"
#include "plan_gate.h"
#include "planio/plan_digest.h"
#include "planio/plan_file.h"
#include "planio/plan_to_proto.h"
#include "planio/sha256.h"
#include "progress.h"
#include "report/chrome_trace.h"
#include "report/html_report.h"
#include "report/perfetto_trace.h"
#include "routing_flags.h"
#include "run_summary.h"
#include "subcommand.h"
#include "verbosity.h"

namespace hyperplan::cli {
namespace {

struct PlanFlags {
  ModelInputFlags inputs;
  std::string budget;                    // --budget SIZE, e.g. 64GiB
  std::string max_overhead;              // --max-overhead PCT, e.g. 1 or 0.5%
  std::string align;                     // --align BYTES, e.g. 256 or 4KiB
  std::string output_path;               // -o plan.pb | plan.json
  std::string onnx_path;                 // --emit-onnx out.onnx
  std::string report_path;               // --report plan.html
  std::string trace_path;                // --trace plan.json (Chrome trace) or plan.pftrace
  std::string node_times_path;           // --node-times profile.json (ONNX Runtime's profiling)
  std::vector<std::string> alias_flags;  // --alias OUT=IN
  bool onnx_static = false;              // --emit-onnx-static
  bool summary_json = false;
  bool no_offload = false;
  bool single_run = false;
  bool device_only = false;  // --device-only
  RoutingFlags routing;      // --routing-samples, --routing-seed
};

// A power of two of at most 1 GiB, in bytes (a bare number) or with a byte unit.
std::optional<int64_t> ParseAlign(const std::string& text, std::string& problem) {
  int64_t bytes = 0;
  try {
    bytes = ParseQuantity(text, Quantity::kBytes, /*allow_bare_number=*/true);
  } catch (const std::invalid_argument& error) {
    problem = error.what();
    return std::nullopt;
  }
  if (bytes < 1 || bytes > (int64_t{1} << 30) || (bytes & (bytes - 1)) != 0) {
    problem = fmt::format("'{}' is {} bytes; the alignment must be a power of two from 1 B to 1GiB",
                          text, bytes);
    return std::nullopt;
  }
  return bytes;
}

std::string ValidateAlign(const std::string& text) {
  std::string problem;
  ParseAlign(text, problem);
  return problem;
}

// Every flag of the command, in one place.
void AddPlanFlags(CLI::App& command, PlanFlags& flags) {
  AddModelInputFlags(command, flags.inputs);
  AddAllowUnknownFlag(command, flags.inputs);
  AddExpertStatsFlag(command, flags.inputs.expert_stats_path);
  AddBudgetFlags(command, flags.budget, flags.max_overhead,
                 "device arena budget, e.g. 64GiB or 80GB",
                 "allowed slowdown over the no-offload makespan, in percent; a plan above it "
                 "exits 7 (without it: 1% guides the planner and never fails the run)");
  command
      .add_option("--align", flags.align,
                  "device arena alignment in bytes, a power of two (default: the device tier's "
                  "`alignment` in the profile, 256 when it states none)")
      ->check(CLI::Validator(ValidateAlign, "BYTES", "align"));
  command.add_option("-o,--output", flags.output_path,
                     "write the plan: .pb (protobuf) or .json (schemas/plan.proto)");
  command.add_option("--emit-onnx", flags.onnx_path,
                     "write the model with the cache operators as ai.hyperplan nodes");
  command
      .add_flag("--emit-onnx-static", flags.onnx_static,
                "with --emit-onnx: fix the model's input and output shapes to the bound dims, the "
                "one shape the plan holds for")
      ->needs(command.get_option("--emit-onnx"));
  command.add_flag("--summary-json", flags.summary_json,
                   "print one JSON line (schemas/plan.proto RunSummary) instead of the summary, "
                   "on every exit (failures say why)");
  command.add_flag("--no-offload", flags.no_offload,
                   "plan nothing: the model's order and no cache ops (the baseline)");
  command.add_option("--report", flags.report_path,
                     "write a self-contained HTML report: memory over time, streams, decisions");
  command.add_option("--trace", flags.trace_path,
                     "write the simulated schedule as a Chrome trace (JSON: chrome://tracing, "
                     "Perfetto), or in Perfetto's protobuf format when FILE ends in .pftrace "
                     "(several times smaller, for big plans)");
  AddLoopFlags(command, flags.single_run, flags.alias_flags);
  AddDeviceOnlyFlag(command, flags.device_only);
  AddRoutingFlags(command, flags.routing);
  command.add_option("--node-times", flags.node_times_path,
                     "plan with measured node times: ONNX Runtime's profiling JSON "
                     "(enable_profiling); median per node over its runs, matched by node name; "
                     "other nodes keep the roofline estimate");
  AddVerbosityFlags(command);
}

// Every file the run reads and every file it writes; no output may be an input or another
// output (compared by file identity).
files::OutputGuard OutputsAndInputs(const PlanFlags& flags) {
  files::OutputGuard guard;
  guard.AddInput("model", flags.inputs.model_path);
  guard.AddInput("hardware profile", flags.inputs.profile_path);
  guard.AddInput("node times", flags.node_times_path);
  guard.AddOutput("-o", "plan output", flags.output_path);
  guard.AddOutput("--emit-onnx", "rewritten model output", flags.onnx_path);
  guard.AddOutput("--report", "report output", flags.report_path);
  guard.AddOutput("--trace", "trace output", flags.trace_path);
  return guard;
}

std::vector<ClassRule> CommandLineClassRules(const ModelInputFlags& inputs) {
  std::vector<ClassRule> rules;
  for (const std::string& text : inputs.class_flags) {
    const size_t equals = text.find('=');  // validated at parse time
    rules.push_back({*ParseValueClass(text.substr(0, equals)), text.substr(equals + 1)});
  }
  return rules;
}

std::string OnnxCheckNote(const onnx_rewrite::CheckReport& check) {
  if (check.schemaless_nodes == 0) return "passes ONNX's checker";
  std::string ops;
  for (const std::string& op : check.schemaless_ops) ops += (ops.empty() ? "" : ", ") + op;
  return "passes ONNX's checker, which has no schema for " + ops + " (" +
         std::to_string(check.schemaless_nodes) +
         (check.schemaless_nodes == 1 ? " node" : " nodes") + ", checked for structure only)";
}

// "0.12 s" of wall time since `start`, for -v notes.
std::string SecondsSince(std::chrono::steady_clock::time_point start) {
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  return fmt::format("{:.2f} s", elapsed.count());
}

void Print(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

planio::PlanProvenance MakeProvenance(const PlanFlags& flags) {
  planio::PlanProvenance provenance;
  provenance.tool_version = HYPERPLAN_VERSION;
  provenance.model_path = flags.inputs.model_path;
  provenance.model_sha256 = planio::Sha256FileHex(flags.inputs.model_path);
  std::error_code unknown_size;  // the digest above already reported an unreadable file
  provenance.model_file_bytes =
      static_cast<int64_t>(std::filesystem::file_size(flags.inputs.model_path, unknown_size));
  provenance.options.offload = !flags.no_offload;
  if (!flags.budget.empty()) {
    provenance.options.budget_bytes = ParseQuantity(flags.budget, Quantity::kBytes);
  }
  if (!flags.max_overhead.empty()) {
    provenance.options.max_overhead_ppm = ParseOverheadPpm(flags.max_overhead);
  }
  provenance.max_overhead_given = !flags.max_overhead.empty();
  provenance.cli_class_rules = CommandLineClassRules(flags.inputs);
  provenance.options.single_run = flags.single_run;
  provenance.options.host_compute = !flags.device_only;
  provenance.options.route_fetch = !flags.routing.no_route_fetch;
  provenance.alias_rules = flags.alias_flags;
  if (!flags.align.empty()) {
    std::string unused;
    provenance.align_bytes = ParseAlign(flags.align, unused);
  }
  return provenance;
}

// The loop's alias pairs: the user's rules, then the exporter conventions (loop.h); each pair
// and each read-only state with the rule that found it, at -v and in --summary-json.
void AddLoopOptions(const PlanFlags& flags, const Graph& graph, PlanOptions& options,
                    plan::v1::RunSummary& summary) {
  if (options.single_run) return;
  std::vector<AliasRule> rules;
  for (const std::string& text : flags.alias_flags) rules.push_back(ParseAliasRule(text));
  const LoopState state = FindLoopState(graph, rules);
  for (const FoundAlias& found : state.pairs) {
    options.aliases.push_back(found.alias);
    plan::v1::LoopStatePair& pair = *summary.add_loop_state();
    pair.set_output(graph.values[found.alias.out_value].name);
    pair.set_input(graph.values[found.alias.in_value].name);
    pair.set_rule(found.rule);
    spdlog::info("{}: loop state '{}' -> '{}' ({})", flags.inputs.model_path, pair.output(),
                 pair.input(), found.rule);
  }
  for (const ReadOnlyState& read_only : state.read_only) {
    plan::v1::LoopStatePair& pair = *summary.add_loop_state();
    pair.set_input(graph.values[read_only.value].name);
    pair.set_rule(read_only.rule);
    spdlog::info("{}: loop state '{}' read every step, never written ({})", flags.inputs.model_path,
                 pair.input(), read_only.rule);
  }
}

// Every output's bytes, made before any is written: a failure leaves no file half-updated.
struct EncodedOutputs {
  std::string plan_sha256;
  std::string plan_bytes;
  onnx_rewrite::RewriteResult onnx;
  std::string report_html;
  std::string trace_bytes;
};

// What the report says at its top: the gate's verdict and, when it failed, why (the gate's
// message without the "<model>: " it starts with; the page names the model already).
report::ReportOutcome ReportOutcomeOf(const std::string& model_path, const GateOutcome& gate,
                                      const PlanOptions& options, bool overhead_is_target,
                                      const PlanResult& result,
                                      const contenders::PortfolioComparison& comparison) {
  report::ReportOutcome outcome;
  outcome.gate = gate.passed                           ? report::GateVerdict::kPassed
                 : gate.kind == ErrorKind::kInfeasible ? report::GateVerdict::kInfeasible
                                                       : report::GateVerdict::kOverOverhead;
  outcome.reason = gate.passed ? "" : gate.message;
  const std::string prefix = model_path + ": ";
  if (outcome.reason.rfind(prefix, 0) == 0) outcome.reason.erase(0, prefix.size());
  if (overhead_is_target) outcome.max_overhead_ppm = options.max_overhead_ppm;
  outcome.makespan_lower_bound_ns = comparison.makespan_lower_bound_ns;
  outcome.peak_floor_bytes = comparison.peak_floor_bytes;
  for (const contenders::ContenderOutcome& c : comparison.contenders) {
    outcome.contenders.push_back({c.name, c.fits, c.makespan_ns, c.arena_bytes, c.moved_bytes});
  }
  outcome.own_makespan_ns = result.own_makespan_ns;
  outcome.own_fits = result.own_fits;
  return outcome;
}

// The report and the trace: views of the plan for people and for trace viewers.
void EncodeViews(const PlanFlags& flags, const ModelInputs& inputs, const PlanResult& result,
                 const PlanOptions& options, const report::ReportOutcome& outcome,
                 EncodedOutputs& outputs) {
  const std::string version = std::string("hyperplan ") + HYPERPLAN_VERSION;
  const Plan& plan = result.plan;
  if (!flags.report_path.empty()) {
    const report::ReportProvenance provenance{flags.inputs.model_path, version, options, ""};
    outputs.report_html = report::HtmlReport(inputs.graph, inputs.profile, plan, result.evaluation,
                                             provenance, outcome);
  }
  if (!flags.trace_path.empty()) {
    std::ostringstream trace;
    const report::TraceProvenance trace_provenance{flags.inputs.model_path, version};
    if (report::WantsPerfettoTrace(flags.trace_path)) {
      report::WritePerfettoTrace(trace, inputs.graph, inputs.profile, plan, result.evaluation,
                                 trace_provenance);
    } else {
      report::WriteChromeTrace(trace, inputs.graph, inputs.profile, plan, result.evaluation,
                               trace_provenance);
    }
    outputs.trace_bytes = trace.str();
  }
}

// `plan_sha256`: planio::PlanSha256(message), computed once (it encodes a copy of the plan).
EncodedOutputs EncodeOutputs(const PlanFlags& flags, const plan::v1::Plan& message,
                             std::string plan_sha256) {
  EncodedOutputs outputs;
  outputs.plan_sha256 = std::move(plan_sha256);
  if (!flags.output_path.empty()) {
    outputs.plan_bytes =
        planio::EncodePlan(message, planio::EncodingForPath(flags.output_path, "-o"));
  }
  if (!flags.onnx_path.empty()) {
    onnx_rewrite::RewriteOptions options;
    options.model_path = flags.inputs.model_path;
    options.output_path = flags.onnx_path;
    options.plan_sha256 = outputs.plan_sha256;
    options.tool_version = HYPERPLAN_VERSION;
    options.static_shapes = flags.onnx_static;
    outputs.onnx = onnx_rewrite::RewriteModel(message, options);
  }
  return outputs;
}

void WriteOutputs(const PlanFlags& flags, const EncodedOutputs& outputs,
                  plan::v1::RunSummary& summary) {
  if (!flags.output_path.empty()) {
    files::WriteFileAtomically(flags.output_path, outputs.plan_bytes);
    summary.set_plan_file(flags.output_path);
  }
  if (!flags.onnx_path.empty()) {
    files::WriteFileAtomically(flags.onnx_path, outputs.onnx.model_bytes);
    summary.set_onnx_file(flags.onnx_path);
  }
  if (!flags.report_path.empty())
    files::WriteFileAtomically(flags.report_path, outputs.report_html);
  if (!flags.trace_path.empty()) files::WriteFileAtomically(flags.trace_path, outputs.trace_bytes);
}

std::string SummaryText(const PlanFlags& flags, const ModelInputs& inputs,
                        const EvaluatedPlan& planned, const std::string& routing_line,
                        const EncodedOutputs& outputs) {
  std::string text =
      FormatPlanSummary(inputs.graph, inputs.profile, planned.plan, planned.evaluation);
  text += routing_line;
  text += "  plan sha256: " + outputs.plan_sha256 + "\n";
  if (!flags.output_path.empty()) text += "  wrote " + flags.output_path + "\n";
  if (!flags.onnx_path.empty()) {
    text += "  wrote " + flags.onnx_path + " (" + std::to_string(outputs.onnx.cache_nodes) +
            " cache operator nodes; " + OnnxCheckNote(outputs.onnx.check) + ")\n";
  }
  if (!flags.report_path.empty()) text += "  wrote " + flags.report_path + "\n";
  if (!flags.trace_path.empty()) text += "  wrote " + flags.trace_path + "\n";
  return text;
}

// The model and the profile (--align applied to its device tier); the model's external data
// files join the guard's inputs, so no output may overwrite them either.
ModelInputs ImportModel(const PlanFlags& flags, files::OutputGuard& guard,
                        plan::v1::RunSummary& summary) {
  const auto start = std::chrono::steady_clock::now();
  ModelInputs inputs = LoadModelInputs(flags.inputs);
  if (!flags.align.empty()) {
    std::string unused;
    inputs.profile.tiers[inputs.profile.device_tier].alignment_bytes =
        *ParseAlign(flags.align, unused);
  }
  summary.set_profile(inputs.profile.name);
  spdlog::info("{}: imported {} nodes and {} values in {}", flags.inputs.model_path,
               inputs.graph.nodes.size(), inputs.graph.values.size(), SecondsSince(start));
  for (const std::string& file : inputs.graph.external_data_files) {
    guard.AddInput("model's external data", file);
  }
  guard.Check();
  return inputs;
}

// Plans, writes every output and prints the summary; returns the gate's verdict. Errors
// (exits 1-5, 8, 9) propagate with `summary` holding what was known by then.
GateOutcome PlanAndWrite(const PlanFlags& flags, plan::v1::RunSummary& summary) {
  files::OutputGuard guard = OutputsAndInputs(flags);
  guard.Check();
  if (!flags.output_path.empty()) planio::EncodingForPath(flags.output_path, "-o");

  Progress progress(stderr, Progress::WantedOnStderr(QuietRequested()), 4);
  progress.Stage("importing model");
  const ModelInputs inputs = ImportModel(flags, guard, summary);
  RecordAttention(inputs.graph, inputs.profile, summary);
  if (const std::string attention = DescribeAttentionCosting(inputs.graph, inputs.profile);
      !attention.empty()) {
    spdlog::info("{}: attention: {}", flags.inputs.model_path, attention);
  }
  planio::PlanProvenance provenance = MakeProvenance(flags);
  AddLoopOptions(flags, inputs.graph, provenance.options, summary);
  const std::optional<NodeTimesInput> node_times =
      LoadNodeTimes(flags.node_times_path, inputs.graph, inputs.profile);
  if (node_times) {
    provenance.options.node_time_ns = node_times->match.node_time_ns;
    AddNodeTimes(*node_times, &summary);
  }
  progress.Stage("planning");
  const auto planning = std::chrono::steady_clock::now();
  contenders::PortfolioComparison comparison;
  const PlanResult result =
      contenders::PlanBest(inputs.graph, inputs.profile, provenance.options, &comparison);
  spdlog::info("{}: planned {} steps in {}", flags.inputs.model_path, result.plan.steps.size(),
               SecondsSince(planning));
  progress.Stage("encoding outputs");
  const plan::v1::Plan message =
      planio::PlanToProto(inputs.graph, inputs.profile, result, provenance);
  const std::string plan_sha256 = planio::PlanSha256(message);
  RecordPlan(message, plan_sha256, summary);
  RecordBottleneck(
      inputs.profile,
      FindBottleneck(inputs.graph, inputs.profile, result.plan, result.evaluation.timeline),
      summary);
  RecordHostPlacement(inputs.graph, result.plan, result.evaluation.timeline, summary);
  const std::string routing_line = SampleRoutings(flags.routing, flags.inputs.model_path,
                                                  inputs.graph, inputs.profile, result, summary);
  EncodedOutputs outputs = EncodeOutputs(flags, message, plan_sha256);
  // The gate is judged before the views are made (the report's verdict shows it) and acted
  // on after every output is written.
  const GateOutcome gate =
      EvaluateGate(flags.inputs.model_path, result, provenance.options.max_overhead_ppm,
                   /*overhead_is_target=*/provenance.max_overhead_given);
  EncodeViews(flags, inputs, result, provenance.options,
              ReportOutcomeOf(flags.inputs.model_path, gate, provenance.options,
                              provenance.max_overhead_given, result, comparison),
              outputs);
  progress.Stage("writing outputs");
  WriteOutputs(flags, outputs, summary);
  progress.Finish();

  RecordGate(gate, summary);
  Print(flags.summary_json ? SummaryLine(summary)
                           : SummaryText(flags, inputs, result, routing_line, outputs) +
                                 (node_times ? NodeTimesSummaryLine(*node_times) : std::string()));
  return gate;
}

void PrintFailure(const PlanFlags& flags, ErrorKind kind, const std::string& message,
                  plan::v1::RunSummary& summary) {
  if (!flags.summary_json) return;
  RecordFailure(kind, message, summary);
  Print(SummaryLine(summary));
}

void RunPlan(const PlanFlags& flags) {
  plan::v1::RunSummary summary;
  summary.set_model(flags.inputs.model_path);
  GateOutcome gate;
  // main prints the error line and maps the kind to the exit code; here the summary line
  // goes out first, with the same kind and message.
  try {
    gate = PlanAndWrite(flags, summary);
  } catch (const Error& error) {
    PrintFailure(flags, error.kind(), error.what(), summary);
    throw;
  } catch (const std::bad_alloc&) {
    PrintFailure(flags, ErrorKind::kInternal, "out of memory", summary);
    throw;
  } catch (const std::exception& error) {
    PrintFailure(flags, ErrorKind::kInternal, std::string("internal error: ") + error.what(),
                 summary);
    throw;
  }
  if (!gate.passed) throw Error(gate.kind, gate.message);
}

// The tokens after `plan` up to a "--" (after which every token is positional).
bool HasSummaryJsonFlag(int argc, char** argv) {
  for (int i = 2; i < argc; ++i) {
    const std::string token = argv[i];
    if (token == "--") return false;
    if (token == "--summary-json") return true;
  }
  return false;
}

}  // namespace

void AddPlanCommand(CLI::App& app) {
  const auto [command, flags] = AddSubcommand<PlanFlags>(
      app, "plan",
      "Plan which tensors move between memory tiers, and when; gate on budget and overhead",
      RunPlan);
  AddPlanFlags(*command, *flags);
}

void PrintPlanSummaryForUsageError(const CLI::App& app, int argc, char** argv,
                                   const std::string& message) {
  if (argc < 2 || std::string(argv[1]) != "plan" || !HasSummaryJsonFlag(argc, argv)) return;
  plan::v1::RunSummary summary;
  const CLI::Option* model = app.get_subcommand("plan")->get_option_no_throw("model");
  if (model != nullptr && !model->results().empty()) summary.set_model(model->results().front());
  RecordFailure(ErrorKind::kUsage, message, summary);
  Print(SummaryLine(summary));
}

}  // namespace hyperplan::cli
