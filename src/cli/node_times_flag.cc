// `plan --node-times` (see node_times_flag.h).
#include "node_times_flag.h"

#include <fmt/format.h>

#include <algorithm>

#include "hyperplan/error.h"

namespace hyperplan::cli {
namespace {

constexpr size_t kNamesShown = 3;

// "'a', 'b', 'c' and 2 more".
std::string SomeNames(const std::vector<std::string>& names) {
  std::string text;
  const size_t shown = std::min(names.size(), kNamesShown);
  for (size_t i = 0; i < shown; ++i) text += fmt::format("{}'{}'", i == 0 ? "" : ", ", names[i]);
  if (names.size() > shown) text += fmt::format(" and {} more", names.size() - shown);
  return text;
}

}  // namespace

std::optional<NodeTimesInput> LoadNodeTimes(const std::string& path, const Graph& graph,
                                            const HardwareProfile& profile) {
  if (path.empty()) return std::nullopt;
  NodeTimesInput input;
  input.path = path;
  input.measured = ReadOrtProfile(path);
  input.match = MatchNodeTimes(graph, profile, input.measured.median_ns);
  if (input.match.matched_nodes == 0) {
    throw Error(
        ErrorKind::kInputFile,
        fmt::format("{}: none of its {} profiled nodes is a node of the model (profiled: "
                    "{}); was it made with this model, with graph optimizations off?",
                    path, input.measured.median_ns.size(), SomeNames(input.match.unknown_names)));
  }
  return input;
}

std::string NodeTimesSummaryLine(const NodeTimesInput& input) {
  const NodeTimeMatch& match = input.match;
  const int64_t nodes = match.matched_nodes + match.unmatched_nodes;
  std::string line = fmt::format(
      "  node times: {} of {} nodes measured in {} (median of {} {}); {} keep the roofline "
      "estimate",
      match.matched_nodes, nodes, input.path, input.measured.most_runs,
      input.measured.most_runs == 1 ? "run" : "runs", match.unmatched_nodes);
  if (!match.unknown_names.empty()) {
    line += fmt::format("; {} profiled {} not in the model: {}", match.unknown_names.size(),
                        match.unknown_names.size() == 1 ? "name is" : "names are",
                        SomeNames(match.unknown_names));
  }
  return line + "\n";
}

void AddNodeTimes(const NodeTimesInput& input, plan::v1::RunSummary* summary) {
  summary->set_node_times_file(input.path);
  summary->set_node_times_matched(input.match.matched_nodes);
  summary->set_node_times_unmatched(input.match.unmatched_nodes);
  summary->set_node_times_unknown(static_cast<int64_t>(input.match.unknown_names.size()));
}

}  // namespace hyperplan::cli
