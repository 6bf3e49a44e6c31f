// `hyperplan fit` (see fit_command.h).
//
// Order of work: flags first (ranges, the moved dim not also bound by --dim), so a mistake
// costs nothing; then the profile and one parse of the model; then the search or the sweep,
// each value imported from that parse and planned; then the report (text, or --json through
// schemas/fit.proto) and the --report page (fit_html.h), both from the same FitReport; the exit
// code last. --report is checked against the inputs before any work (files/output_guard.h).
#include "fit_command.h"

#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "expert_stats_flag.h"
#include "files/atomic_write.h"
#include "files/output_guard.h"
#include "fit_html.h"
#include "fit_llama_cpp.h"
#include "fit_point.h"
#include "fit_range.h"
#include "fit_search.h"
#include "fit_text.h"
#include "fit_window.h"
#include "hyperplan/adapters/dim_ties.h"
#include "hyperplan/adapters/onnx_import.h"
#include "hyperplan/adapters/profile_yaml.h"
#include "hyperplan/error.h"
#include "hyperplan/units.h"
#include "model_inputs.h"
#include "plan_gate.h"
#include "planio/plan_file.h"
#include "progress.h"
#include "subcommand.h"
#include "verbosity.h"

namespace hyperplan::cli {
namespace {

struct FitFlags {
  ModelInputFlags inputs;
  std::string grow;                      // --grow NAME[=MIN..MAX]
  std::string sweep;                     // --sweep NAME=FROM..TO[:STEP]
  std::string budget;                    // --budget SIZE
  std::string max_overhead;              // --max-overhead PCT
  std::vector<std::string> ties;         // --tie NAME=EXPRESSION
  std::vector<std::string> alias_flags;  // --alias OUT=IN
  std::string tokens_input = "input_ids";
  std::string report_path;      // --report fit.html
  std::string llama_cpp_flags;  // --llama-cpp-flags[=shell|lines]; "" when not given
  bool json = false;
  bool single_run = false;
  bool device_only = false;    // --device-only
  bool beyond_window = false;  // --beyond-window
};

template <typename Parse>
CLI::Validator RangeValidator(Parse parse, const std::string& name) {
  return CLI::Validator(
      [parse](const std::string& text) {
        std::string problem;
        parse(text, problem);
        return problem;
      },
      name, name);
}

void AddFitFlags(CLI::App& command, FitFlags& flags) {
  AddModelInputFlags(command, flags.inputs);
  AddAllowUnknownFlag(command, flags.inputs);
  AddExpertStatsFlag(command, flags.inputs.expert_stats_path);
  command
      .add_option("--grow", flags.grow,
                  "NAME[=MIN..MAX]: find the largest value of dim NAME whose plan fits and meets "
                  "--max-overhead (every doubling from MIN to MAX, then bisection of the last "
                  "flip and a look around it, since passing need not be monotone; default "
                  "1..16M, a context length capped at the model's window; values take k = 1024, "
                  "M, G: 4k, 128k)")
      ->check(RangeValidator(ParseGrowRange, "NAME[=MIN..MAX]"));
  command
      .add_option("--sweep", flags.sweep,
                  "NAME=FROM..TO[:STEP]: plan each value and print a table (without STEP each "
                  "row doubles the last; TO is always the last row)")
      ->check(RangeValidator(ParseSweepRange, "NAME=FROM..TO[:STEP]"))
      ->excludes(command.get_option("--grow"));
  AddBudgetFlags(command, flags.budget, flags.max_overhead,
                 "device arena budget, e.g. 64GiB (default: the device's capacity)",
                 "a value passes only when its plan is at most this much slower than no "
                 "offloading, in percent (default: no target, fitting is enough)");
  command
      .add_option("--tie", flags.ties,
                  "NAME=EXPRESSION: dim NAME follows the others, e.g. "
                  "total_sequence=past_sequence+1 (repeatable; for partners the model names "
                  "apart; space a minus: 'a - 1')")
      ->check(CLI::Validator([](const std::string& text) { return DimTieProblem(text); },
                             "NAME=EXPRESSION", "tie"))
      ->take_all()
      ->allow_extra_args(false);
  command.add_option("--tokens-input", flags.tokens_input,
                     "the graph input whose elements are the tokens an iteration processes "
                     "(batch x new tokens), for tokens/s (default input_ids)");
  command.add_flag("--json", flags.json,
                   "print one JSON document (schemas/fit.proto FitReport) instead of the text");
  command.add_option("--report", flags.report_path,
                     "FILE.html: also write a self-contained HTML page, from the same report as "
                     "--json: tokens/s, time per iteration, arena and overhead against the dim's "
                     "values, and the table");
  command
      .add_option("--llama-cpp-flags", flags.llama_cpp_flags,
                  "[=shell|lines]: print instead of the table the llama.cpp flags that realise "
                  "the answer's placement (--sweep: the largest passing value's): -ngl 999, and "
                  "-ot patterns keeping on the CPU the weights of each part the plan runs on the "
                  "host, with --no-op-offload; one shell-quoted line (shell, the default) or one "
                  "argument per line (lines)")
      ->expected(0, 1)
      ->default_str("shell")
      ->check(CLI::IsMember({"shell", "lines"}))
      ->excludes(command.get_option("--json"));
  command.add_flag("--beyond-window", flags.beyond_window,
                   "--grow of a context length (a dim the kv cache grows with): search past the "
                   "model's context window (max_position_embeddings) instead of stopping at it");
  AddLoopFlags(command, flags.single_run, flags.alias_flags);
  AddDeviceOnlyFlag(command, flags.device_only);
  AddVerbosityFlags(command);
}

struct Moved {
  std::string flag;  // "--grow" or "--sweep"
  std::string dim;
  std::optional<GrowRange> grow;
  std::optional<SweepRange> sweep;
};

// Which dim moves, over which values; Error(kUsage) when neither or both flags are given, or
// when --dim also binds the moved dim.
Moved MovedDim(const FitFlags& flags) {
  if (flags.grow.empty() && flags.sweep.empty()) {
    throw Error(ErrorKind::kUsage,
                "fit needs --grow NAME (the largest value that fits) or --sweep NAME=FROM..TO "
                "(a table), e.g. --grow past_sequence");
  }
  Moved moved;
  std::string problem;
  if (!flags.grow.empty()) {
    moved = {"--grow", "", ParseGrowRange(flags.grow, problem), std::nullopt};
    moved.dim = moved.grow->dim;
  } else {
    moved = {"--sweep", "", std::nullopt, ParseSweepRange(flags.sweep, problem)};
    moved.dim = moved.sweep->dim;
  }
  if (ParseDims(flags.inputs.dim_flags).count(moved.dim)) {
    throw Error(ErrorKind::kUsage,
                fmt::format("--dim {} and {} {}: the dim {} moves is not bound with --dim",
                            moved.dim, moved.flag, moved.dim, moved.flag));
  }
  return moved;
}

FitSettings MakeSettings(const FitFlags& flags, const Moved& moved, const ParsedOnnxModel& model,
                         HardwareProfile profile) {
  FitSettings settings;
  settings.model_path = flags.inputs.model_path;
  settings.expert_stats_path = flags.inputs.expert_stats_path;
  settings.model = &model;
  settings.import = ImportOptionsFromFlags(flags.inputs, profile.class_rules);
  settings.ties = flags.ties;
  settings.dim = moved.dim;
  settings.dim_flag = moved.flag;
  const int64_t capacity = profile.tiers[profile.device_tier].capacity_bytes;
  settings.budget_bytes = flags.budget.empty()
                              ? capacity
                              : std::min(capacity, ParseQuantity(flags.budget, Quantity::kBytes));
  if (!flags.max_overhead.empty()) settings.max_overhead_ppm = ParseOverheadPpm(flags.max_overhead);
  settings.single_run = flags.single_run;
  settings.host_compute = !flags.device_only;
  for (const std::string& text : flags.alias_flags) {
    settings.alias_rules.push_back(ParseAliasRule(text));
  }
  settings.tokens_input = flags.tokens_input;
  settings.profile = std::move(profile);
  return settings;
}

fit::v1::FitReport StartReport(const FitFlags& flags, const FitSettings& settings) {
  fit::v1::FitReport report;
  report.set_model(flags.inputs.model_path);
  report.set_profile(settings.profile.name);
  report.set_dim(settings.dim);
  for (const auto& [name, value] : settings.import.dims) {
    fit::v1::BoundDim* dim = report.add_fixed_dims();
    dim->set_name(name);
    dim->set_value(value);
  }
  for (const std::string& tie : settings.ties) report.add_ties(tie);
  report.set_budget_bytes(settings.budget_bytes);
  report.set_budget_is_device(flags.budget.empty());
  if (settings.max_overhead_ppm) report.set_max_overhead_ppm(*settings.max_overhead_ppm);
  return report;
}

// A context length's range stops at the model's window unless --beyond-window: the dim is one
// when it lengthens the kv cache (fit_window.h; two imports, no plans). Error(kUsage) when the
// whole range lies past the window.
GrowRange CapAtWindow(const FitFlags& flags, const ParsedOnnxModel& model, GrowRange range,
                      FitEvaluator& evaluator, fit::v1::FitReport& report) {
  const std::optional<ContextWindow> window = ModelContextWindow(model, flags.inputs.model_path);
  if (!window) return range;
  report.set_window_tokens(window->tokens);
  report.set_window_source(window->source);
  if (flags.beyond_window || range.max <= window->tokens) return range;
  if (!LengthensContext(evaluator.KvCacheShapesAt(range.min),
                        evaluator.KvCacheShapesAt(range.min + 1))) {
    return range;
  }
  if (range.min > window->tokens) {
    throw Error(ErrorKind::kUsage,
                fmt::format("--grow {}={}..{}: the model's context window is {} tokens ({}); "
                            "start at or below it, or add --beyond-window",
                            range.dim, range.min, range.max, window->tokens, window->source));
  }
  range.max = window->tokens;
  report.set_capped_at_window(true);
  return range;
}

// Over budget at one value stays over budget at larger ones (the arena grows with the dim);
// over the overhead target may pass again (the 70B decode of fit_search.h).
Probe ProbeOf(const fit::v1::FitPoint& point) {
  if (Passes(point)) return Probe::kPasses;
  return FailureKind(point) == ErrorKind::kInfeasible ? Probe::kFailsForGood : Probe::kFails;
}

void RecordSearch(const SearchOutcome& outcome, FitEvaluator& evaluator,
                  fit::v1::FitReport& report) {
  report.set_probed(static_cast<int32_t>(outcome.probed.size()));
  report.set_scan_top(outcome.scan_top);
  report.set_neighbourhood_probes(outcome.neighbourhood_probes);
  if (outcome.failing_below_answer) {
    report.set_failing_below_answer(*outcome.failing_below_answer);
  }
  for (int64_t value : outcome.probed) {
    if (!evaluator.Evaluate(value, false).planned()) report.set_unplanned(report.unplanned() + 1);
  }
}

// The search; the answer is planned (if the search passed it unplanned) for its numbers.
void Grow(const GrowRange& range, FitEvaluator& evaluator, Progress& progress,
          fit::v1::FitReport& report) {
  report.set_mode("grow");
  report.set_min(range.min);
  report.set_max(range.max);
  const SearchOutcome outcome = LargestPassing(range.min, range.max, [&](int64_t value) {
    progress.Stage(fmt::format("{}={}", range.dim, value));
    return ProbeOf(evaluator.Evaluate(value, /*need_plan=*/false));
  });
  RecordSearch(outcome, evaluator, report);
  report.set_found(outcome.found);
  if (outcome.found) {
    progress.Stage(fmt::format("{}={} (the answer)", range.dim, outcome.answer));
    report.set_answer(outcome.answer);
    *report.mutable_at_answer() = evaluator.Evaluate(outcome.answer, /*need_plan=*/true);
    if (!Passes(report.at_answer())) {
      throw Error(ErrorKind::kInternal,
                  fmt::format("{}={} passed with nothing offloaded, but its plan does not: {}",
                              range.dim, outcome.answer, report.at_answer().message()));
    }
  }
  if (outcome.first_failing) {
    *report.mutable_first_failing() = evaluator.Evaluate(*outcome.first_failing, true);
  }
  for (int64_t value : outcome.probed) {
    *report.add_points() = evaluator.Evaluate(value, false);
  }
}

void Sweep(const SweepRange& range, FitEvaluator& evaluator, Progress& progress,
           fit::v1::FitReport& report) {
  report.set_mode("sweep");
  report.set_min(range.from);
  report.set_max(range.to);
  report.set_step(range.step);
  bool found = false;
  for (int64_t value : range.Values()) {
    progress.Stage(fmt::format("{}={}", range.dim, value));
    const fit::v1::FitPoint& point = evaluator.Evaluate(value, /*need_plan=*/true);
    found = found || Passes(point);
    *report.add_points() = point;
  }
  report.set_found(found);
  report.set_probed(static_cast<int32_t>(report.points_size()));
}

// The exit: 0 when a value passes, else the smallest value's failure (6 or 7).
std::optional<Error> Verdict(const fit::v1::FitReport& report) {
  if (report.found()) return std::nullopt;
  const fit::v1::FitPoint& first =
      report.mode() == "grow" ? report.first_failing() : report.points(0);
  return Error(FailureKind(first), report.model() + ": " + first.message());
}

// The files the run reads and the one it may write: --report must be neither input.
void CheckOutputs(const FitFlags& flags) {
  files::OutputGuard guard;
  guard.AddInput("model", flags.inputs.model_path);
  guard.AddInput("hardware profile", flags.inputs.profile_path);
  guard.AddOutput("--report", "report output", flags.report_path);
  guard.Check();
}

void SetVerdict(const std::optional<Error>& verdict, fit::v1::FitReport& report) {
  if (!verdict) return;
  report.set_exit_code(ExitCode(verdict->kind()));
  report.set_error_kind(std::string(ErrorKindName(verdict->kind())));
  report.set_message(verdict->what());
}

// --llama-cpp-flags: the flags of the answer (--grow) or of the largest passing row (--sweep),
// as one shell line or one argument per line; nothing when no value passes (the exit says
// why).
std::string LlamaCppText(const fit::v1::FitReport& report, const std::string& form) {
  const fit::v1::FitPoint* chosen = nullptr;
  if (report.mode() == "grow") {
    if (report.found()) chosen = &report.at_answer();
  } else {
    for (const fit::v1::FitPoint& point : report.points()) {
      if (Passes(point) && (chosen == nullptr || point.value() > chosen->value())) chosen = &point;
    }
  }
  if (chosen == nullptr) return "";
  const std::vector<std::string> args(chosen->llama_cpp_args().begin(),
                                      chosen->llama_cpp_args().end());
  if (form == "lines") return fmt::format("{}\n", fmt::join(args, "\n"));
  return ShellLine(args) + "\n";
}

// The page first (a failed write is exit 9 before anything is printed), then stdout.
void WriteOutputs(const FitFlags& flags, const fit::v1::FitReport& report) {
  if (!flags.report_path.empty()) {
    files::WriteFileAtomically(
        flags.report_path, FitHtmlReport(report, std::string("hyperplan ") + HYPERPLAN_VERSION));
  }
  std::string text = flags.json ? planio::EncodeJson(report, /*pretty=*/true) + "\n"
                     : !flags.llama_cpp_flags.empty() ? LlamaCppText(report, flags.llama_cpp_flags)
                                                      : FormatFitText(report);
  const bool table = !flags.json && flags.llama_cpp_flags.empty();
  if (table && !flags.report_path.empty()) text += "  wrote " + flags.report_path + "\n";
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

void RunFit(const FitFlags& flags) {
  const Moved moved = MovedDim(flags);
  CheckOutputs(flags);
  HardwareProfile profile =
      flags.inputs.profile_path.empty() ? DefaultProfile() : LoadProfile(flags.inputs.profile_path);
  const ParsedOnnxModel model(flags.inputs.model_path);
  const FitSettings settings = MakeSettings(flags, moved, model, std::move(profile));
  FitEvaluator evaluator(settings);
  Progress progress(stderr, Progress::WantedOnStderr(QuietRequested()), 0);
  fit::v1::FitReport report = StartReport(flags, settings);
  if (moved.grow) {
    Grow(CapAtWindow(flags, model, *moved.grow, evaluator, report), evaluator, progress, report);
  } else {
    Sweep(*moved.sweep, evaluator, progress, report);
  }
  progress.Finish();
  report.set_plans(evaluator.plans());
  const std::optional<Error> verdict = Verdict(report);
  SetVerdict(verdict, report);
  WriteOutputs(flags, report);
  if (verdict) throw *verdict;
}

}  // namespace

void AddFitCommand(CLI::App& app) {
  const auto [command, flags] = AddSubcommand<FitFlags>(
      app, "fit",
      "Find the largest context (or batch) that fits a machine, or tabulate a range: "
      "arena, time per iteration, tokens/s, bottleneck",
      RunFit);
  AddFitFlags(*command, *flags);
}

}  // namespace hyperplan::cli
