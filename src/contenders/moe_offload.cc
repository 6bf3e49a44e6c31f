// The field's MoE placements (see moe_offload.h).
#include "contenders/moe_offload.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <utility>

#include "hyperplan/planner/host_parts.h"

namespace hyperplan::contenders {
namespace {

// The MoE layers' routed experts and what every placement here also puts on the host (the
// token embedding).
struct MoeParts {
  std::vector<RoutedExperts> layers;  // by layer
  std::vector<NodeId> always;
};

MoeParts FindMoeParts(const Problem& problem) {
  MoeParts parts;
  for (const HostPart& part : FindHostParts(problem)) {
    if (part.kind == HostPartKind::kEmbedding) {
      parts.always.insert(parts.always.end(), part.nodes.begin(), part.nodes.end());
    } else if (part.kind == HostPartKind::kRoutedExperts) {
      parts.layers.push_back({part.layer, part.nodes});
    }
  }
  std::stable_sort(
      parts.layers.begin(), parts.layers.end(),
      [](const RoutedExperts& a, const RoutedExperts& b) { return a.layer < b.layer; });
  return parts;
}

// The problem with the embedding and the MoE layers [first, last) on the host.
Problem PlaceLayers(const Problem& problem, const MoeParts& parts, size_t first, size_t last) {
  std::vector<ComputeUnit> units(problem.graph->nodes.size(), ComputeUnit::kDevice);
  for (NodeId node : parts.always) units[node] = ComputeUnit::kHost;
  for (size_t i = first; i < last; ++i) {
    for (NodeId node : parts.layers[i].nodes) units[node] = ComputeUnit::kHost;
  }
  return PlaceUnits(problem, std::move(units));
}

bool ResidentFits(const Problem& placed, int64_t budget_bytes) {
  return placed.lifetimes.timeline.peak_bytes <= budget_bytes;
}

// The fewest layers on the host, in 0..`most`, for which `fits(count)` holds, given that it
// holds at `most` (the device's peak falls as layers go to the host).
size_t FewestFitting(size_t most, const std::function<bool(size_t)>& fits) {
  if (fits(0)) return 0;
  size_t misses = 0;
  while (most - misses > 1) {
    const size_t mid = misses + (most - misses) / 2;
    (fits(mid) ? most : misses) = mid;
  }
  return most;
}

// "3-5", or "3" for one layer.
std::string LayerSpan(const MoeParts& parts, size_t first, size_t last) {
  const int from = parts.layers[first].layer;
  const int to = parts.layers[last - 1].layer;
  return from == to ? fmt::format("{}", from) : fmt::format("{}-{}", from, to);
}

// Which MoE layers [first, last) run on the host under `placement`, and the note saying so.
struct HostSpan {
  size_t first = 0;
  size_t last = 0;
  std::string note;
};

HostSpan ChooseSpan(const Problem& problem, const MoeParts& parts, int64_t budget_bytes,
                    MoePlacement placement) {
  const size_t count = parts.layers.size();
  if (placement == MoePlacement::kKTransformers) {
    return {0, count, fmt::format("routed experts of all {} MoE layers on the CPU", count)};
  }
  if (placement == MoePlacement::kLlamaCppNCpuMoe) {
    const size_t host = FewestFitting(count, [&](size_t n) {
      return ResidentFits(PlaceLayers(problem, parts, 0, n), budget_bytes);
    });
    // llama.cpp's N counts layers from 0, dense ones included.
    const int n_flag = host == 0 ? 0 : parts.layers[host - 1].layer + 1;
    return {0, host,
            host == count
                ? fmt::format("--n-cpu-moe {} = -ot exps=CPU (all {} MoE layers)", n_flag, count)
                : fmt::format("--n-cpu-moe {} ({}/{} MoE layers' experts on the CPU)", n_flag, host,
                              count)};
  }
  const size_t host = FewestFitting(count, [&](size_t n) {
    return ResidentFits(PlaceLayers(problem, parts, count - n, count), budget_bytes);
  });
  const size_t on_device = count - host;
  return {on_device, count,
          on_device == 0
              ? std::string("no MoE layer's experts fit on the GPU beside the rest")
              : fmt::format("experts of MoE layers {} on the GPU ({}/{}), the rest on the CPU",
                            LayerSpan(parts, 0, on_device), on_device, count)};
}

const char* ProducedBy(MoePlacement placement) {
  switch (placement) {
    case MoePlacement::kKTransformers:
      return "KTransformers";
    case MoePlacement::kGpuExpertsFirst:
      return "llama.cpp --fit MoE";
    case MoePlacement::kLlamaCppNCpuMoe:
      return "llama.cpp --n-cpu-moe";
  }
  return "";
}

}  // namespace

std::vector<RoutedExperts> FindRoutedExperts(const Problem& problem) {
  return FindMoeParts(problem).layers;
}

MoeOffloadResult MoeOffloadPlan(const ContenderContext& context, std::optional<int64_t> budget,
                                MoePlacement placement) {
  MoeOffloadResult out;
  if (!context.profile->host_compute.present()) {
    out.note = "the profile has no host unit";
    return out;
  }
  const MoeParts parts = FindMoeParts(context);
  out.expert_layers = static_cast<int>(parts.layers.size());
  if (parts.layers.empty()) {
    out.note = "no MoE block the host may run";
    return out;
  }
  const int64_t budget_bytes = context.EffectiveBudget(budget);
  const Problem all = PlaceLayers(context, parts, 0, parts.layers.size());
  if (!ResidentFits(all, budget_bytes)) {
    out.note = fmt::format(
        "not built: with every routed expert on the CPU the device still needs {:.1f} GB over "
        "{:.1f} GB",
        static_cast<double>(all.lifetimes.timeline.peak_bytes) / 1e9,
        static_cast<double>(budget_bytes) / 1e9);
    return out;
  }
  HostSpan span = ChooseSpan(context, parts, budget_bytes, placement);
  out.host_expert_layers = static_cast<int>(span.last - span.first);
  out.result = PlanOffload(PlaceLayers(context, parts, span.first, span.last),
                           DeviceSideOptions(context, budget_bytes));
  out.result.plan.produced_by = ProducedBy(placement);
  out.note = std::move(span.note);
  out.built = true;
  return out;
}

}  // namespace hyperplan::contenders
