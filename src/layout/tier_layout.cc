// Off-device tier buffers (see tier_layout.h).
#include "layout/tier_layout.h"

#include <algorithm>
#include <map>
#include <utility>

#include "plan/compute_bounds.h"

namespace hyperplan::planner {

std::vector<LayoutBlock> TierCopyBlocks(const Plan& plan, const HardwareProfile& profile) {
  const ComputeBounds bounds = BoundByCompute(plan, profile);
  const auto order_size = static_cast<int32_t>(plan.order.size());
  auto valid = [&](int32_t step) {
    return step >= 0 && static_cast<size_t>(step) < plan.steps.size();
  };
  std::vector<LayoutBlock> blocks;
  blocks.reserve(plan.tier_copies.size());
  for (const TierCopy& copy : plan.tier_copies) {
    LayoutBlock block;
    block.first = valid(copy.opened_by) ? bounds.ended_before[copy.opened_by] + 1 : 0;
    block.last = valid(copy.closed_by) ? bounds.starts_after[copy.closed_by] : order_size;
    block.last = std::max(block.last, block.first);  // a malformed plan; the verifier says so
    block.bytes = copy.bytes;
    blocks.push_back(block);
  }
  return blocks;
}

namespace {

// A host buffer only has to fit its tier: the sweep's layout (what a first-come allocator does)
// is kept when it does, and the greedy orders run only when it does not and could: when the
// live bytes alone exceed the tier, no layout fits. The result fits exactly when
// LayoutBlocks' smallest would, without paying for greedy orders on tens of thousands of
// long-lived staging copies (seconds a layout on the DeepSeek-V3-sized plans).
BlockLayout LayoutWithinCapacity(const std::vector<LayoutBlock>& blocks, int32_t positions,
                                 int64_t alignment_bytes, int64_t capacity_bytes,
                                 const LayoutOptions& options) {
  LayoutOptions sweep_only = options;
  sweep_only.greedy = false;
  BlockLayout swept = LayoutBlocks(blocks, positions, alignment_bytes, sweep_only);
  const bool fits_as_swept = swept.size_bytes <= capacity_bytes;
  const bool cannot_fit = swept.live_peak_bytes > capacity_bytes;
  if (!options.greedy || capacity_bytes <= 0 || fits_as_swept || cannot_fit) return swept;
  return LayoutBlocks(blocks, positions, alignment_bytes, options);
}

}  // namespace

std::vector<TierBuffer> LayoutTierBuffers(const HardwareProfile& profile,
                                          const LayoutOptions& options, Plan& plan) {
  const std::vector<LayoutBlock> blocks = TierCopyBlocks(plan, profile);
  std::map<TierId, std::vector<size_t>> copies_on;  // ascending tier
  for (size_t c = 0; c < plan.tier_copies.size(); ++c) {
    copies_on[plan.tier_copies[c].tier].push_back(c);
  }
  const auto positions = static_cast<int32_t>(plan.order.size()) + 1;
  std::vector<TierBuffer> buffers;
  for (const auto& [tier, copies] : copies_on) {
    std::vector<LayoutBlock> tier_blocks;
    tier_blocks.reserve(copies.size());
    for (const size_t c : copies) tier_blocks.push_back(blocks[c]);
    TierBuffer buffer;
    buffer.tier = tier;
    const Tier* spec = tier >= 0 && static_cast<size_t>(tier) < profile.tiers.size()
                           ? &profile.tiers[tier]
                           : nullptr;
    buffer.alignment_bytes = spec != nullptr ? std::max<int64_t>(1, spec->alignment_bytes) : 1;
    BlockLayout layout = LayoutWithinCapacity(tier_blocks, positions, buffer.alignment_bytes,
                                              spec != nullptr ? spec->capacity_bytes : 0, options);
    for (size_t k = 0; k < copies.size(); ++k) {
      plan.tier_copies[copies[k]].offset_bytes = layout.offset_bytes[k];
    }
    buffer.size_bytes = layout.size_bytes;
    buffer.live_peak_bytes = layout.live_peak_bytes;
    buffer.algorithm = std::move(layout.algorithm);
    buffers.push_back(std::move(buffer));
  }
  return buffers;
}

}  // namespace hyperplan::planner
