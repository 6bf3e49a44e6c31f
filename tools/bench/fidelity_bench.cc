// The fidelity table (see fidelity_bench.h).
#include "fidelity_bench.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>

#include "fidelity_data.h"
#include "fidelity_model.h"
#include "fidelity_ratio.h"
#include "json_fields.h"
#include "process_stats.h"

namespace hyperplan::bench {
namespace {

struct RowOutcome {
  bool planned = false;
  double predicted = 0;
  double ratio = 0;
  std::string problem;  // why there is no prediction
  FidelityModel model;
};

bool Selected(const FidelityRow& row, const std::vector<std::string>& filters) {
  if (filters.empty()) return true;
  return std::any_of(filters.begin(), filters.end(), [&](const std::string& filter) {
    return row.id.find(filter) != std::string::npos;
  });
}

std::vector<std::string> PlanArgs(const FidelityRow& row, const std::string& model_path) {
  std::vector<std::string> argv = {HYPERPLAN_CLI_PATH, "plan", model_path, "--hw", row.profile};
  for (const std::string& dim : FidelityDims(row)) argv.insert(argv.end(), {"--dim", dim});
  if (!row.budget.empty()) argv.insert(argv.end(), {"--budget", row.budget});
  argv.insert(argv.end(), {"--summary-json", "-q"});
  return argv;
}

// Plans the row's model in a child and reads the steady-state time per step.
RowOutcome PlanRow(const FidelityRow& row, const std::string& models_dir) {
  RowOutcome outcome;
  outcome.model = EnsureFidelityModel(row, models_dir);
  const ProcessStats stats = RunMeasured(PlanArgs(row, outcome.model.path));
  const std::string& summary = stats.stdout_text;
  const int64_t step_ns = JsonInteger(summary, "makespan_ns");
  if (stats.exit_code != 0 || step_ns <= 0) {
    const std::string message = JsonString(summary, "message");
    outcome.problem = fmt::format("no plan (hyperplan exit {}{}{})", stats.exit_code,
                                  message.empty() ? "" : ": ", message);
    return outcome;
  }
  outcome.planned = true;
  outcome.predicted = PredictedValue(row.published_unit, step_ns, TokensPerStep(row));
  outcome.ratio = FidelityRatio(outcome.predicted, row.published_value);
  return outcome;
}

std::string Note(const FidelityRow& row, const RowOutcome& outcome) {
  std::string note;
  if (outcome.model.today && row.today_precision != row.precision) {
    note = fmt::format("modelled as {} today (`{}`)", row.today_precision,
                       fmt::join(outcome.model.flags, " "));
  }
  const bool outside = !outcome.planned || !WithinBand(outcome.ratio);
  if (outside) {
    const std::string gap = !outcome.problem.empty() ? outcome.problem
                            : row.gap.empty()        ? "outside the band: no gap recorded"
                                                     : row.gap;
    note += (note.empty() ? "" : "; ") + gap;
  }
  return note;
}

std::string TableRow(size_t index, const FidelityRow& row, const RowOutcome& outcome) {
  const std::string predicted =
      outcome.planned ? FormatValue(outcome.predicted, row.published_unit) : "-";
  const std::string ratio = outcome.planned ? fmt::format("{:.2f}", outcome.ratio) : "-";
  const std::string within = outcome.planned && WithinBand(outcome.ratio) ? "yes" : "no";
  return fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", index + 1,
                     row.id, row.model, row.profile, row.batch, ContextLabel(row), row.precision,
                     row.form, predicted, FormatValue(row.published_value, row.published_unit),
                     ratio, within + (Note(row, outcome).empty() ? "" : ": " + Note(row, outcome)));
}

void Emit(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

}  // namespace

int RunFidelityBench(const FidelityOptions& options) {
  const std::vector<FidelityRow> rows = LoadFidelityRows(options.data_path);
  Emit(
      "| # | row | model | machine | batch | context | precision | phase | predicted | "
      "published | ratio | within 0.8-1.25x? and note |\n"
      "|---:|---|---|---|---:|---|---|---|---:|---:|---:|---|\n");
  std::string sources;
  int outside = 0;
  int unexplained = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const FidelityRow& row = rows[i];
    if (!Selected(row, options.rows)) continue;
    const RowOutcome outcome = PlanRow(row, options.models_dir);
    Emit(TableRow(i, row, outcome));
    sources += fmt::format("{}. `{}`: {}. {}.\n", i + 1, row.id, row.source, row.method);
    const bool in_band = outcome.planned && WithinBand(outcome.ratio);
    outside += in_band ? 0 : 1;
    unexplained += !in_band && row.gap.empty() ? 1 : 0;
  }
  Emit(fmt::format("\n{} rows outside 0.8-1.25x, {} of them without a recorded gap.\n\n", outside,
                   unexplained));
  Emit("Sources and method:\n\n" + sources);
  return options.check && unexplained > 0 ? 1 : 0;
}

}  // namespace hyperplan::bench
