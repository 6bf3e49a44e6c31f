// llama.cpp's -ot FFN placement (see llama_cpp_ffn.h).
#include "contenders/llama_cpp_ffn.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "hyperplan/planner/host_parts.h"

namespace hyperplan::contenders {
namespace {

// The parts llama.cpp places: the FFNs by layer, and the token embedding it always keeps on
// the CPU.
struct LlamaCppParts {
  std::vector<HostPart> ffn;     // by layer, first first
  std::vector<HostPart> always;  // the token embedding, when eligible
};

LlamaCppParts SplitParts(const Problem& problem) {
  LlamaCppParts split;
  for (HostPart& part : FindHostParts(problem)) {
    if (part.kind == HostPartKind::kMlp || part.kind == HostPartKind::kRoutedExperts) {
      split.ffn.push_back(std::move(part));
    } else if (part.kind == HostPartKind::kEmbedding) {
      split.always.push_back(std::move(part));
    }
  }
  std::stable_sort(split.ffn.begin(), split.ffn.end(),
                   [](const HostPart& a, const HostPart& b) { return a.layer < b.layer; });
  // A MoE layer's two parts (router and shared experts, routed experts) are one FFN to
  // llama.cpp: blk.N.ffn_.* matches them all.
  std::vector<HostPart> by_layer;
  for (HostPart& part : split.ffn) {
    if (!by_layer.empty() && by_layer.back().layer == part.layer) {
      by_layer.back().nodes.insert(by_layer.back().nodes.end(), part.nodes.begin(),
                                   part.nodes.end());
    } else {
      by_layer.push_back(std::move(part));
    }
  }
  split.ffn = std::move(by_layer);
  return split;
}

// The problem with the embedding and the first `count` FFNs on the host.
Problem PlaceFirst(const Problem& problem, const LlamaCppParts& split, size_t count) {
  std::vector<HostPart> chosen = split.always;
  chosen.insert(chosen.end(), split.ffn.begin(), split.ffn.begin() + count);
  return PlaceUnits(problem, NodeUnitsOf(*problem.graph, chosen));
}

bool ResidentFits(const Problem& placed, int64_t budget_bytes) {
  return placed.lifetimes.timeline.peak_bytes <= budget_bytes;
}

// The fewest FFNs whose placement fits, given that all of them fit (the peak falls as more
// go to the host, so the first fitting count is found by bisection).
size_t FewestFitting(const Problem& problem, const LlamaCppParts& split, int64_t budget_bytes) {
  size_t fits = split.ffn.size();
  if (ResidentFits(PlaceFirst(problem, split, 0), budget_bytes)) return 0;
  size_t misses = 0;
  while (fits - misses > 1) {
    const size_t mid = misses + (fits - misses) / 2;
    if (ResidentFits(PlaceFirst(problem, split, mid), budget_bytes)) {
      fits = mid;
    } else {
      misses = mid;
    }
  }
  return fits;
}

}  // namespace

LlamaCppFfnResult LlamaCppFfnPlan(const ContenderContext& context, std::optional<int64_t> budget) {
  LlamaCppFfnResult out;
  if (!context.profile->host_compute.present()) {
    out.note = "the profile has no host unit";
    return out;
  }
  const int64_t budget_bytes = context.EffectiveBudget(budget);
  const LlamaCppParts split = SplitParts(context);
  out.ffn_parts = static_cast<int>(split.ffn.size());
  const Problem all = PlaceFirst(context, split, split.ffn.size());
  if (!ResidentFits(all, budget_bytes)) {
    out.note = fmt::format(
        "not built: with all {} FFNs on the CPU the device still needs {:.1f} GB over {:.1f} GB; "
        "llama.cpp would move whole layers (-ngl: its own contender, llama_cpp_layers.h)",
        split.ffn.size(), static_cast<double>(all.lifetimes.timeline.peak_bytes) / 1e9,
        static_cast<double>(budget_bytes) / 1e9);
    return out;
  }
  const size_t count = FewestFitting(context, split, budget_bytes);
  out.cpu_ffn_layers = static_cast<int>(count);
  out.result =
      PlanOffload(PlaceFirst(context, split, count), DeviceSideOptions(context, budget_bytes));
  out.result.plan.produced_by = "llama.cpp -ot FFN";
  out.built = true;
  out.note = fmt::format("-ot FFN of the first {}/{} layers on the CPU", count, split.ffn.size());
  return out;
}

}  // namespace hyperplan::contenders
