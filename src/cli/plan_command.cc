// `hyperplan plan` (see plan_command.h).
//
// Order of work: usage checks on the outputs first (extension, never an input file), so a
// mistake costs nothing; then import, plan, encode; then every output, atomically; then the
// summary on stdout; the gate last, so CI gets the files and the numbers even on a miss.
#include "plan_command.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

#include "hyperplan/error.h"
#include "hyperplan/planner/planner.h"
#include "hyperplan/planner/summary.h"
#include "hyperplan/units.h"
#include "model_inputs.h"
#include "onnx_rewrite/rewrite.h"
#include "output_file.h"
#include "plan_gate.h"
#include "planio/plan_file.h"
#include "planio/plan_to_proto.h"
#include "planio/sha256.h"
#include "progress.h"
#include "report/chrome_trace.h"
#include "report/html_report.h"

namespace hyperplan::cli {
namespace {

struct PlanFlags {
  ModelInputFlags inputs;
  std::string budget;        // --budget SIZE, e.g. 64GiB
  std::string max_overhead;  // --max-overhead PCT, e.g. 1 or 0.5%
  std::string align;         // --align BYTES, e.g. 256 or 4KiB
  std::string output_path;   // -o plan.pb | plan.json
  std::string onnx_path;     // --emit-onnx out.onnx
  std::string report_path;   // --report plan.html
  std::string trace_path;    // --trace plan.json (Chrome trace)
  bool onnx_static = false;  // --emit-onnx-static
  bool summary_json = false;
  bool no_offload = false;
  bool quiet = false;  // no progress line on stderr
};

std::string ValidateBudget(const std::string& text) {
  try {
    ParseQuantity(text, Quantity::kBytes);
    return "";
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
}

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

std::string ValidateOverhead(const std::string& text) {
  try {
    ParseOverheadPpm(text);
    return "";
  } catch (const std::invalid_argument& error) {
    return std::string("expected a percent such as 1 or 0.5%: ") + error.what();
  }
}

// Every flag of the command, in one place.
void AddPlanFlags(CLI::App& command, PlanFlags& flags) {
  AddModelInputFlags(command, flags.inputs);
  command.add_option("--budget", flags.budget, "device arena budget, e.g. 64GiB or 80GB")
      ->check(CLI::Validator(ValidateBudget, "SIZE", "budget"));
  command
      .add_option("--max-overhead", flags.max_overhead,
                  "allowed slowdown over the no-offload makespan, in percent (default 1)")
      ->check(CLI::Validator(ValidateOverhead, "PCT", "overhead"));
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
                   "print one JSON line (schemas/plan.proto RunSummary) instead of the summary");
  command.add_flag("--no-offload", flags.no_offload,
                   "plan nothing: the model's order and no cache ops (the baseline)");
  command.add_option("--report", flags.report_path,
                     "write a self-contained HTML report: memory over time, streams, decisions");
  command.add_option("--trace", flags.trace_path,
                     "write the simulated schedule as a Chrome trace (chrome://tracing, Perfetto)");
  command.add_flag("-q,--quiet", flags.quiet, "no progress line on stderr");
}

void CheckOutputs(const PlanFlags& flags) {
  const std::vector<std::pair<std::string, std::string>> inputs = {
      {"model", flags.inputs.model_path}, {"hardware profile", flags.inputs.profile_path}};
  if (!flags.output_path.empty()) {
    RefuseToOverwriteInputs("-o", flags.output_path, inputs);
    planio::EncodingForPath(flags.output_path, "-o");
  }
  if (!flags.report_path.empty()) RefuseToOverwriteInputs("--report", flags.report_path, inputs);
  if (!flags.trace_path.empty()) RefuseToOverwriteInputs("--trace", flags.trace_path, inputs);
  if (!flags.onnx_path.empty()) {
    RefuseToOverwriteInputs("--emit-onnx", flags.onnx_path, inputs);
    if (!flags.output_path.empty()) {
      RefuseToOverwriteInputs("--emit-onnx", flags.onnx_path, {{"plan output", flags.output_path}});
    }
  }
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

void Print(const std::string& text) { std::fwrite(text.data(), 1, text.size(), stdout); }

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
  if (!flags.align.empty()) {
    std::string unused;
    provenance.align_bytes = ParseAlign(flags.align, unused);
  }
  return provenance;
}

// Every output's bytes, made before any is written: a failure leaves no file half-updated.
struct EncodedOutputs {
  std::string plan_sha256;
  std::string plan_bytes;
  onnx_rewrite::RewriteResult onnx;
  std::string report_html;
  std::string trace_json;
};

// The report and the trace: views of the plan for people and for trace viewers.
void EncodeViews(const PlanFlags& flags, const ModelInputs& inputs, const Plan& plan,
                 const PlanOptions& options, EncodedOutputs& outputs) {
  const std::string version = std::string("hyperplan ") + HYPERPLAN_VERSION;
  if (!flags.report_path.empty()) {
    const report::ReportProvenance provenance{flags.inputs.model_path, version, options, ""};
    outputs.report_html = report::HtmlReport(inputs.graph, inputs.profile, plan, provenance);
  }
  if (!flags.trace_path.empty()) {
    std::ostringstream trace;
    report::WriteChromeTrace(trace, inputs.graph, inputs.profile, plan,
                             {flags.inputs.model_path, version});
    outputs.trace_json = trace.str();
  }
}

EncodedOutputs EncodeOutputs(const PlanFlags& flags, const plan::v1::Plan& message) {
  EncodedOutputs outputs;
  outputs.plan_sha256 = planio::Sha256Hex(planio::EncodeBinary(message));
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

std::string SummaryText(const PlanFlags& flags, const ModelInputs& inputs, const Plan& plan,
                        const EncodedOutputs& outputs) {
  std::string text = FormatPlanSummary(inputs.graph, inputs.profile, plan);
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

void RunPlan(const PlanFlags& flags) {
  CheckOutputs(flags);
  Progress progress(stderr, Progress::WantedOnStderr(flags.quiet), 4);
  progress.Stage("importing model");
  ModelInputs inputs = LoadModelInputs(flags.inputs);
  if (!flags.align.empty()) {
    std::string unused;
    inputs.profile.tiers[inputs.profile.device_tier].alignment_bytes =
        *ParseAlign(flags.align, unused);
  }
  const planio::PlanProvenance provenance = MakeProvenance(flags);
  progress.Stage("planning");
  const PlanResult result = PlanOffload(inputs.graph, inputs.profile, provenance.options);
  progress.Stage("encoding outputs");
  const plan::v1::Plan message =
      planio::PlanToProto(inputs.graph, inputs.profile, result, provenance);
  EncodedOutputs outputs = EncodeOutputs(flags, message);
  EncodeViews(flags, inputs, result.plan, provenance.options, outputs);
  progress.Stage("writing outputs");
  if (!flags.output_path.empty()) WriteFileAtomically(flags.output_path, outputs.plan_bytes);
  if (!flags.onnx_path.empty()) WriteFileAtomically(flags.onnx_path, outputs.onnx.model_bytes);
  if (!flags.report_path.empty()) WriteFileAtomically(flags.report_path, outputs.report_html);
  if (!flags.trace_path.empty()) WriteFileAtomically(flags.trace_path, outputs.trace_json);
  progress.Finish();

  const bool overhead_is_target =
      provenance.max_overhead_given || (!provenance.options.budget_bytes && !flags.no_offload);
  const GateOutcome gate = EvaluateGate(flags.inputs.model_path, result,
                                        provenance.options.max_overhead_ppm, overhead_is_target);
  if (flags.summary_json) {
    const plan::v1::RunSummary summary =
        BuildRunSummary(message, gate, outputs.plan_sha256, flags.output_path, flags.onnx_path);
    Print(planio::EncodeJson(summary, /*pretty=*/false) + "\n");
  } else {
    Print(SummaryText(flags, inputs, result.plan, outputs));
  }
  std::fflush(stdout);
  if (!gate.passed) throw Error(gate.kind, gate.message);
}

}  // namespace

void AddPlanCommand(CLI::App& app) {
  auto flags = std::make_shared<PlanFlags>();
  CLI::App* command = app.add_subcommand(
      "plan",
      "Plan which tensors move between memory tiers, and when; gate on budget and overhead");
  AddPlanFlags(*command, *flags);
  command->callback([flags] { RunPlan(*flags); });
}

}  // namespace hyperplan::cli
