// --routing-samples / --routing-seed (see routing_flags.h).
#include "routing_flags.h"

#include "hyperplan/error.h"

namespace hyperplan::cli {

void AddRoutingFlags(CLI::App& command, RoutingFlags& flags) {
  command
      .add_option("--routing-samples", flags.samples,
                  "MoE models: replay and verify the plan under N sampled routings (each MoE node "
                  "reads the experts one drawn routing touches) and report the mean and p99 "
                  "iteration time; 0: none")
      ->capture_default_str()
      ->check(CLI::Range(0, 100000));
  command.add_option("--routing-seed", flags.seed, "seed of the sampled routings")
      ->capture_default_str();
}

std::string SampleRoutings(const RoutingFlags& flags, const std::string& model_path,
                           const Graph& graph, const HardwareProfile& profile,
                           const EvaluatedPlan& planned, plan::v1::RunSummary& summary) {
  const PlanSummary& numbers = planned.evaluation.summary;
  const NoOffloadReference reference{numbers.baseline_peak_bytes, numbers.baseline_arena_bytes};
  const RoutingSpread spread =
      EvaluateRoutingSpread(graph, profile, planned.plan, reference, {flags.samples, flags.seed});
  if (spread.samples == 0) return "";
  if (spread.failed_sample >= 0) {
    throw Error(ErrorKind::kInternal, model_path +
                                          ": the plan fails to verify under sampled routing " +
                                          std::to_string(spread.failed_sample) + " (seed " +
                                          std::to_string(flags.seed) + "): " + spread.failure);
  }
  summary.set_routing_samples(spread.samples);
  summary.set_routing_seed(spread.seed);
  summary.set_routing_mean_ns(spread.mean_ns);
  summary.set_routing_p99_ns(spread.p99_ns);
  summary.set_routing_mean_distinct_experts(spread.mean_distinct_experts);
  return "  routing: " + DescribeRoutingSpread(spread) + "\n";
}

}  // namespace hyperplan::cli
