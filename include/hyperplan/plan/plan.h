// Plan: the planner's decisions. The order, the cache ops placed on streams, the device
// residency with its arena offsets and the tier copies with theirs; each decision with its
// reason. What replaying it gives (the timeline, whether it fits, the summary, the cold start)
// is its evaluation (evaluation.h: PlanEvaluation), derived from it and kept beside it
// (EvaluatedPlan), never inside it.
//
// Execution semantics (the simulator, the verifier and any runtime follow the same rules):
// - `steps` is one sequence. Compute steps of the device (PlanStep::unit) and Detach steps run
//   on the compute stream, in sequence order; compute steps of the host on the host lane, in
//   sequence order there; each transfer (Prefetch, Store) runs on its link's channel, in
//   sequence order there (FIFO per channel). A step starts when the previous step on its
//   stream has ended and every step in `waits_for` (always earlier in the sequence) has ended.
// - A host compute step (issue 30) reads every input from, and writes every output to, the
//   profile's host compute tier (HostComputeSpec::memory_tier): an input is a TierCopy there
//   (a home copy, a Store's copy, or a host step's output), an output a TierCopy opened by
//   the step itself, complete at its end. It needs no device residency: a value crosses
//   between units as an ordinary Store (device -> host tier) or Prefetch (host tier ->
//   device), and a host node's weights never cross.
// - A link's bandwidth is divided evenly among its channels: one transfer of B bytes on a link
//   with c channels takes latency + ceil(B * c / bandwidth), and the link never carries more
//   than its bandwidth however many channels are busy (ChannelTransferTimeNs in simulate.h).
//   A routed transfer (routed_by set) on a link of several channels holds all of them: it
//   starts once each one's previous step has ended, each one's next step starts after it
//   ends, and it takes latency + B / bandwidth (whole_link.h: the picked experts' slices go
//   as concurrent requests).
// - Prefetch moves a value one hop towards the device, Store one hop away; a tier that is
//   neither end of a route holds a staging copy between the two hops. Detach drops the device
//   copy of a value whose copy elsewhere already exists; it takes no time.
// - A Prefetch to the device may move its value in chunks (plan/chunks.h): byte ranges, each a
//   step on the same channel; the first allocates, readers wait for the last.
// - Device memory is accounted per step: a ResidentInterval holds its bytes from the start of
//   `first_step` to the end of `last_step`. A Prefetch issued at boundary k (before compute step
//   k) waits for the compute stream to reach that boundary, so its allocation never precedes
//   the frees accounted before step k; that is why the simulated peak never exceeds the
//   per-step live bytes, and the arena laid out over steps covers every simulated instant.
// All quantities are integers (bytes, ns), so a plan is byte-identical run to run.
//
// The structures map one to one onto a protobuf schema (enums, repeated messages, int64
// fields) and onto a rewritten ONNX graph (each cache op a node between its waits_for and the
// compute steps that read the value).
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/lifetimes.h"
#include "hyperplan/loop.h"

namespace hyperplan {

enum class StepKind : uint8_t {
  kCompute,   // runs `node`
  kPrefetch,  // copies `value` from src_tier to dst_tier, one hop towards the device
  kStore,     // copies `value` from src_tier to dst_tier, one hop away from the device
  kDetach,    // drops the device copy of `value` (src_tier); another copy already exists
};
inline constexpr int kStepKindCount = 4;
std::string_view StepKindName(StepKind kind);  // "compute", "prefetch", "store", "detach"
std::ostream& operator<<(std::ostream& out, StepKind kind);  // its name: a failing check reads it

struct PlanStep {
  StepKind kind = StepKind::kCompute;
  ComputeUnit unit = ComputeUnit::kDevice;  // kCompute: which unit runs it; else kDevice
  NodeId node = kNoNode;                    // kCompute
  ValueId value = kNoValue;                 // cache ops
  TierId src_tier = kNoTier;
  TierId dst_tier = kNoTier;  // kNoTier for compute and Detach
  int32_t link = -1;          // index into HardwareProfile::links; transfers only
  int32_t channel = -1;       // channel of that link; transfers only
  int64_t bytes = 0;
  // Compute: its step in the order. Cache op: issued at the boundary before compute step
  // `boundary` (== order size: after the last compute step).
  Step boundary = 0;
  std::vector<int32_t> waits_for;  // indices into Plan::steps, ascending, all before this one
  int64_t planned_start_ns = 0;    // the planner's model, before any stall
  int64_t planned_end_ns = 0;
  // A host compute step: the node's time had it run on the device, so that the no-offload
  // baseline (SimulationResult::baseline_makespan_ns) is the device's, not the placement's.
  int64_t device_time_ns = 0;
  // A routed Prefetch (fetch-after-route, issue 31; docs/design.md "Fetch after route"): it
  // moves only the experts of a stacked [E, ...] operand that MoE node `routed_by`'s tokens
  // pick and no partial residency of the value holds (ResidentInterval::experts). It waits
  // for the router (the producer of the node's routing input), `bytes` is the expected
  // routed bytes (routing.h: what the simulator times), and the residency it opens reserves
  // `reserved_bytes`, the worst case (min(E - resident, k * T) experts), so the plan holds
  // for every routing. kNoNode: an ordinary step.
  NodeId routed_by = kNoNode;
  int64_t reserved_bytes = 0;
  // A chunked Prefetch to the device (plan/chunks.h) moves its value in byte ranges, each a
  // step on one channel: `bytes` from `chunk_offset_bytes` of the value. The first chunk
  // (offset 0, chunk_of -1) opens the residency; each later one names it in `chunk_of` and
  // starts where the chunk before it ended. The device copy is complete when the last chunk
  // (the one reaching the value's bytes) ends; a whole transfer has offset 0 and chunk_of -1.
  int64_t chunk_offset_bytes = 0;
  int32_t chunk_of = -1;
};

// The streams' numbering, the one plan files, the verifier, the report and the simulator
// share: stream 0 is the compute stream (device compute and Detach steps), then one stream per
// link channel, link by link and channel by channel (a link declaring fewer than one channel
// has one), then, when the profile has a host compute unit, the host lane (host compute
// steps). Appended last, it leaves every other stream's number as it was before host compute.
// Cost: O(links) to build, O(1) per query. Limits: queries assume a valid link and channel
// (VerifyPlan checks them).
class StreamNumbering {
 public:
  static constexpr int32_t kComputeStream = 0;

  explicit StreamNumbering(const HardwareProfile& profile);

  int32_t count() const { return count_; }  // compute stream, every link channel, host lane
  int32_t channel_count(int32_t link) const { return channels_[link]; }
  int32_t Of(int32_t link, int32_t channel) const { return first_[link] + channel; }
  int32_t host_lane() const { return host_lane_; }  // -1: the profile has no host unit
  // kComputeStream for device compute and Detach steps, the host lane for host compute steps
  // (the compute stream when the profile has none: VerifyPlan rejects such a step), its link
  // channel's stream for a transfer.
  int32_t Of(const PlanStep& step) const;

 private:
  std::vector<int32_t> first_;     // by link: the stream of its channel 0
  std::vector<int32_t> channels_;  // by link: its channel count, at least 1
  int32_t host_lane_ = -1;
  int32_t count_ = 1;
};

// A stretch of device residency: one arena block. Scratch of a control-flow node has no value.
struct ResidentInterval {
  ValueId value = kNoValue;
  NodeId scratch_node = kNoNode;  // set when this is a control-flow node's body peak
  Step first_step = 0;            // inclusive
  Step last_step = 0;             // inclusive
  int64_t bytes = 0;
  int32_t opened_by = -1;  // step whose start allocates it (compute or Prefetch); -1: run start
  int32_t closed_by = -1;  // step whose end frees it (compute or Detach); -1: run end
  // Resident experts (issue 31): the block holds only these experts (ascending) of a stacked
  // [E, ...] operand of a MoE node, each expert's slice at its rank in the list; a routed
  // Prefetch brings the others the routing picks. Empty: the whole value. A partial block
  // alone never makes its value resident for a reader.
  std::vector<int32_t> experts{};
};

// A copy off the device: a home copy (weights, kv cache, optimizer state kept off the device),
// a stored copy, or a staging copy between two hops.
struct TierCopy {
  ValueId value = kNoValue;
  TierId tier = kNoTier;
  int64_t bytes = 0;
  int32_t opened_by = -1;  // transfer step whose start allocates it; -1: run start
  int32_t closed_by = -1;  // transfer step whose end frees it; -1: run end
  // Where it lives in its tier's buffer (Plan::tier_buffers).
  int64_t offset_bytes = 0;
};

// Why a candidate was or was not offloaded. Prints itself (DecisionReasonName).
enum class DecisionReason : uint8_t {
  kOffloaded,       // taken: the value leaves the device for this gap
  kNotNeeded,       // the budget (or the largest cut the overhead allows) was met without it
  kPinnedByPolicy,  // its class stays on the device (weights with no home tier in the profile)
  kUnknownSize,     // its size is unknown, so moving it cannot be planned
  kNoIdleGap,       // it is needed at every step it is resident
  kNoRoute,         // no chain of links joins the device and a tier that could hold it
  kTierFull,        // the tier that would hold it has no room at those steps
  kStallOverLimit,  // its transfers cannot hide and the overhead limit forbids the stall
  kStoreTooLate,    // its Store cannot start before the step it would have to free
};
inline constexpr int kDecisionReasonCount = 9;
std::string_view DecisionReasonName(DecisionReason reason);  // "offloaded", "not_needed", ...
std::ostream& operator<<(std::ostream& out, DecisionReason reason);  // its name

// One candidate: a value's idle gap between two steps that need it on the device.
struct Decision {
  ValueId value = kNoValue;
  Step gap_after_step = -1;  // last step needing it before the gap; -1: none (run start)
  Step gap_before_step = 0;  // next step needing it; order size: none (run end)
  TierId tier = kNoTier;     // where it goes (or would go)
  DecisionReason reason = DecisionReason::kNotNeeded;
  std::string detail;  // the reason in words, with the numbers behind it
  int64_t bytes = 0;
  int64_t gap_ns = 0;          // planned time between the two steps
  int64_t transfer_ns = 0;     // Store (when needed) plus Prefetch, at full channel speed
  Step freed_first_step = -1;  // offloaded: device steps it no longer occupies (inclusive)
  Step freed_last_step = -1;
  int64_t predicted_stall_ns = 0;  // offloaded: compute delay the planner expects from it
};

// Device arena: an offset for every ResidentInterval (parallel to Plan::residency).
struct ArenaLayout {
  std::vector<int64_t> offset_bytes;
  int64_t arena_bytes = 0;      // the budget applies to this; counts the alignment padding
  int64_t live_peak_bytes = 0;  // lower bound: max over steps of resident bytes (unpadded)
  Step live_peak_step = 0;      // first step reaching live_peak_bytes
  std::string algorithm;        // "greedy_by_size", "greedy_by_duration", "sweep_best_fit", ...
  int64_t alignment_bytes = 1;  // every offset is a multiple; each block padded to one
};

// One buffer per off-device tier that holds a copy (a runtime allocates it once, pinned): every
// TierCopy on the tier lives at its offset_bytes in it. Two copies share space only when one is
// freed before the other is allocated in every execution the waits allow (see tier_layout.h).
struct TierBuffer {
  TierId tier = kNoTier;
  int64_t size_bytes = 0;       // counts the alignment padding; within the tier's capacity
  int64_t live_peak_bytes = 0;  // lower bound (unpadded)
  int64_t alignment_bytes = 1;  // every offset is a multiple
  std::string algorithm;        // as ArenaLayout::algorithm
};

struct StepTiming {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

// Bytes on a tier from `time_ns` until the next point.
struct TierUsagePoint {
  int64_t time_ns = 0;
  int64_t bytes = 0;
};

struct SimulationResult {
  std::vector<StepTiming> steps;                            // parallel to Plan::steps
  std::vector<std::vector<TierUsagePoint>> bytes_per_tier;  // by TierId, ascending time
  std::vector<int64_t> peak_bytes_per_tier;                 // by TierId
  std::vector<int64_t> stall_ns_per_node;     // by NodeId: wait before the node could start
  std::vector<int64_t> bytes_moved_per_link;  // by link index
  int64_t makespan_ns = 0;
  int64_t compute_ns = 0;       // sum of node times, both units
  int64_t host_compute_ns = 0;  // of which on the host lane
  // Without offloading: the compute stream alone, every node on the device (a host step
  // counts its device_time_ns).
  int64_t baseline_makespan_ns = 0;
  int64_t stall_ns = 0;  // sum of stall_ns_per_node

  // Over every link: what a plan moves per run (the tie-break between plans of one makespan).
  int64_t total_bytes_moved() const {
    int64_t total = 0;
    for (int64_t bytes : bytes_moved_per_link) total += bytes;
    return total;
  }
};

// A control-flow node's body peak, as every plan holds it: for each step whose node has one, a
// one-step ResidentInterval of those bytes (no value) opened and closed by the step's compute
// step (`compute_index` by step: index into Plan::steps), appended to `residency`.
void AddBodyScratch(const Graph& graph, const std::vector<NodeId>& order,
                    const std::vector<int32_t>& compute_index,
                    std::vector<ResidentInterval>& residency);

// Plan::order_name of the planner's reorders.
inline constexpr const char* kMemoryAwareOrder = "memory-aware";
inline constexpr const char* kEagerUpdateOrder = "eager updates";
inline constexpr const char* kPrepEarlyOrder = "weights prepared early";

struct PlanSummary {
  int64_t baseline_peak_bytes = 0;   // model order, nothing offloaded: live bytes
  int64_t baseline_arena_bytes = 0;  // ... and its arena
  int64_t peak_bytes = 0;            // simulated device peak of this plan
  int64_t arena_bytes = 0;
  int64_t live_lower_bound_bytes = 0;  // arena lower bound of this plan
  int64_t baseline_makespan_ns = 0;
  int64_t makespan_ns = 0;
  int64_t stall_ns = 0;
  std::vector<int64_t> bytes_moved_per_link;             // by link index
  std::array<int64_t, kStepKindCount> steps_per_kind{};  // indexed by StepKind
  int64_t offloaded_values = 0;
};

// What must be in place before the first iteration of a periodic plan: every persistent value
// (weights, aliased state) where the iteration starts it. Never part of the per-iteration time.
struct ColdStart {
  std::vector<int64_t> bytes_per_tier;  // by TierId
  // Bringing the device's share from each value's home over its route (links in parallel, each
  // at full bandwidth); off-device homes are assumed loaded (from the model's files).
  int64_t time_ns = 0;
};

struct Plan {
  // One iteration of a loop (docs/design.md invariant 8): every persistent value ends the iteration
  // on the tiers, and on the device at the arena offset, where it began, and `aliases` say
  // which outputs are next iteration's inputs. False: one run from a free preload.
  bool periodic = false;
  std::vector<ValueAlias> aliases;  // periodic plans only; ascending by out_value
  // The policy that made this plan: "hyperplan", or the contender that beat the planner's own
  // plan (contenders/portfolio.h).
  std::string produced_by;
  std::vector<NodeId> order;  // step -> node
  bool reordered = false;     // order differs from the model's own
  // When reordered, which order: kMemoryAwareOrder or kEagerUpdateOrder (planner/order.h), or
  // kPrepEarlyOrder (planner/prep_early_order.h).
  std::string order_name;
  bool offload_enabled = true;
  // The arena budget planned for, if any: the caller's, capped by the device capacity (or the
  // capacity alone when the baseline does not fit and no budget was given).
  std::optional<int64_t> budget_bytes;
  std::vector<int64_t> node_time_ns;  // by NodeId: what planning and simulation assume
  std::vector<PlanStep> steps;
  std::vector<ResidentInterval> residency;
  std::vector<TierCopy> tier_copies;
  std::vector<Decision> decisions;
  ArenaLayout layout;
  std::vector<TierBuffer> tier_buffers;  // ascending tier; one per tier holding a TierCopy
};

}  // namespace hyperplan
