// The reference executor (see executor.h). Read it top to bottom: the rules, the plan's static
// view (blocks, streams, which block each step touches), the caller's part between iterations,
// then the stream loop and the three phases of a step (begin under the lock, the bytes outside
// it, end under the lock).
#include "executor/executor.h"

#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "executor/ledger.h"
#include "executor/pacing.h"
#include "executor/plan_view.h"
#include "executor/routed_view.h"
#include "hyperplan/error.h"
#include "hyperplan/loop.h"

namespace hyperplan::executor {
namespace {

// The rules a violation names (schemas/README.md, "Running a plan").
constexpr const char* kRuleWaits =
    "a step touches bytes only after every step that wrote them, or must read them first, has "
    "ended: through its waits_for or its stream's order";
constexpr const char* kRuleDisjoint =
    "blocks never overlap in time and space: bytes are reused only after the step freeing "
    "them has ended";
constexpr const char* kRuleFree = "a block is freed only after every step using it has ended";
constexpr const char* kRuleDetach =
    "a Detach drops the device copy only when another complete copy of the same bytes exists, "
    "or existed until its last reader freed it (it waits for the Store writing it)";
constexpr const char* kRuleBytes = "a step reads each input's bytes as their producer wrote them";
constexpr const char* kRulePlaced =
    "every value a step reads or writes has a block at that step, inside its buffer";
constexpr const char* kRuleHostUnit =
    "a compute step runs on the host only in a profile with a host compute unit "
    "(host_compute), reading and writing copies on its memory tier";
constexpr const char* kRuleRouted =
    "a routed Prefetch reads its iteration's routing and copies each picked expert no partial "
    "residency holds into the block it opens, which has room for the worst routing; its MoE "
    "node reads each picked expert's slice where it lies";
constexpr const char* kRuleLoop =
    "an iteration ends as it began: every persistent value in the same block, its copies on "
    "the same tiers (invariant 8)";

class Run {
 public:
  Run(const Graph& graph, const HardwareProfile& profile, const Plan& plan, Backend& backend,
      const ExecuteOptions& options);
  ~Run();
  ExecutionReport Go();

 private:
  // The static view.
  Graph LoopView(const Graph& graph) const;
  std::string StepName(int32_t step) const;
  std::optional<std::string> CheckBlocksInBuffers() const;
  bool CheckHostSteps();
  BytePattern PatternOf(ValueId value, int64_t version) const;
  int64_t VersionRead(ValueId value, Step step, int32_t iteration) const;
  int64_t VersionPlaced(ValueId value, int32_t iteration) const;
  ValueSpan Span(int32_t block, const BytePattern& pattern, int64_t begin_byte) const;
  std::byte* BlockData(int32_t block) const;
  std::optional<std::string> CheckSlicedBlock(int32_t block) const;

  // The caller's part.
  void PlaceBeforeIteration(int32_t iteration);
  void PlaceResidentExperts(int32_t block, const BytePattern& pattern);
  void DrawRoutings(int32_t iteration);
  void CollectAfterIteration(int32_t iteration);

  // The stream loop and a step's phases.
  void RunIteration(int32_t iteration);
  void StreamLoop(int32_t stream, int32_t iteration);
  bool WaitForDependencies(int32_t step);
  void MarkEnded(int32_t step, Clock::time_point end);
  struct Copy {
    std::byte* to = nullptr;
    const std::byte* from = nullptr;
    int64_t bytes = 0;
  };
  struct Work {
    ComputeCall call;
    std::vector<int32_t> input_blocks;  // parallel to call.inputs
    std::vector<Copy> copies;           // a transfer's byte ranges (one unless routed)
  };
  bool BeginStep(int32_t step, Access access, Work& work);
  bool BeginCompute(int32_t step, Access access, Work& work);
  bool BeginTransfer(int32_t step, Access access, Work& work);
  bool ReadRouting(int32_t step, Access access, const RoutedHop& hop);
  bool CopyRoutedExperts(int32_t step, Access access, const RoutedHop& hop, Work& work);
  bool ReadRoutedSlices(int32_t step, Access access, int32_t block, const BytePattern& expected,
                        Work& work);
  bool BeginDetach(int32_t step, Access access);
  bool UpdatedOnHost(int32_t block, Access access) const;
  bool DoWork(int32_t step, Access access, const Work& work);
  bool EndStep(int32_t step, Access access);
  bool Fail(int32_t step, Access access, const std::optional<std::string>& problem,
            const char* rule);

  const HardwareProfile& profile_;
  const Plan& plan_;
  Backend& backend_;
  const ExecuteOptions& options_;
  const Graph loop_;  // the graph one iteration sees (loop.h LoopGraph)
  std::vector<uint8_t> persistent_;
  std::vector<Step> step_of_node_;
  const PlanView view_;      // buffers, blocks, streams, what each step touches
  const RoutedView routed_;  // routed Prefetches, their blocks and MoE nodes' routings
  std::vector<std::byte*> memory_;
  std::vector<std::string> step_names_;
  std::optional<HappensBefore> order_;
  std::optional<Ledger> ledger_;

  // Shared between the stream threads: all guarded by mutex_.
  std::mutex mutex_;
  std::condition_variable step_ended_;
  std::vector<uint8_t> ended_;
  Clock::time_point last_end_;
  bool failed_ = false;
  ExecutionReport report_;
  // The iteration's routing, by MoE node: 1 for each expert its tokens picked. Written between
  // iterations on the calling thread, only read while the stream threads run.
  std::map<NodeId, std::vector<char>> touched_;
};

Graph Run::LoopView(const Graph& graph) const {
  return plan_.periodic ? LoopGraph(graph, plan_.aliases) : graph;
}

Run::Run(const Graph& graph, const HardwareProfile& profile, const Plan& plan, Backend& backend,
         const ExecuteOptions& options)
    : profile_(profile),
      plan_(plan),
      backend_(backend),
      options_(options),
      loop_(LoopView(graph)),
      view_(BuildPlanView(loop_, profile, plan)),
      routed_(BuildRoutedView(loop_, plan, view_)) {
  persistent_ = plan.periodic ? PersistentValues(loop_, plan.aliases)
                              : std::vector<uint8_t>(loop_.values.size(), 0);
  step_of_node_.assign(loop_.nodes.size(), -1);
  for (size_t k = 0; k < plan.order.size(); ++k) step_of_node_[plan.order[k]] = Step(k);
  report_.stream_count = view_.stream_count;
  for (size_t s = 0; s < plan.steps.size(); ++s) step_names_.push_back(StepName(int32_t(s)));
  std::vector<std::vector<int32_t>> waits;
  for (const PlanStep& step : plan.steps) waits.push_back(step.waits_for);
  order_.emplace(view_.stream_of, waits, report_.stream_count);
  ledger_.emplace(view_.blocks, *order_, step_names_);
}

Run::~Run() {
  for (size_t b = 0; b < memory_.size(); ++b) backend_.Release(memory_[b], view_.buffers[b]);
}

std::string Run::StepName(int32_t step) const {
  const PlanStep& planned = plan_.steps[step];
  const std::string kind(StepKindName(planned.kind));
  if (planned.kind == StepKind::kCompute) {
    return fmt::format("{} '{}'{}", kind, loop_.nodes[planned.node].name,
                       planned.unit == ComputeUnit::kHost ? " on the host" : "");
  }
  const std::string& value = loop_.values[planned.value].name;
  if (planned.kind == StepKind::kDetach) return fmt::format("{} '{}'", kind, value);
  return fmt::format("{} '{}' {}->{}", kind, value, profile_.tiers[planned.src_tier].name,
                     profile_.tiers[planned.dst_tier].name);
}

std::optional<std::string> Run::CheckBlocksInBuffers() const {
  for (size_t b = 0; b < view_.blocks.size(); ++b) {
    const Block& block = view_.blocks[b];
    if (block.buffer < 1 && !view_.block_info[b].device) {
      return fmt::format("{} is on a tier the plan gives no buffer", block.name);
    }
    if (block.offset_bytes < 0 || block.bytes < 0 ||
        block.offset_bytes + block.bytes > view_.buffers[block.buffer].size_bytes) {
      return fmt::format("{} lies outside its buffer of {} bytes", block.name,
                         view_.buffers[block.buffer].size_bytes);
    }
    if (auto problem = CheckSlicedBlock(static_cast<int32_t>(b))) return problem;
    const ValueId value = view_.block_info[b].value;
    const bool sliced = routed_.experts_block[b] >= 0 || routed_.hop_of_block[b] >= 0;
    if (value != kNoValue && !sliced && block.bytes < loop_.values[value].bytes) {
      return fmt::format("{} is smaller than the value ({} bytes)", block.name,
                         loop_.values[value].bytes);
    }
  }
  return std::nullopt;
}

// A partial residency holds its experts' slices; a routed block is checked against each
// iteration's routing when its hop runs (CopyRoutedExperts).
std::optional<std::string> Run::CheckSlicedBlock(int32_t block) const {
  const int32_t hop = routed_.experts_block[block];
  if (hop < 0) return std::nullopt;
  const int64_t held_bytes =
      static_cast<int64_t>(plan_.residency[block].experts.size()) * routed_.hops[hop].slice_bytes;
  if (view_.blocks[block].bytes >= held_bytes) return std::nullopt;
  return fmt::format("{} is smaller than its {} resident experts ({} bytes)",
                     view_.blocks[block].name, plan_.residency[block].experts.size(), held_bytes);
}

// A host step needs a host unit to run on and its tier to read from: refused before any
// thread starts, naming the first such step.
bool Run::CheckHostSteps() {
  if (view_.host_tier != kNoTier) return true;
  for (size_t s = 0; s < plan_.steps.size(); ++s) {
    const PlanStep& planned = plan_.steps[s];
    if (planned.kind != StepKind::kCompute || planned.unit != ComputeUnit::kHost) continue;
    const int32_t step = static_cast<int32_t>(s);
    Fail(step, {step, 1},
         fmt::format("runs on the host, but profile '{}' has no host_compute section",
                     profile_.name),
         kRuleHostUnit);
    return false;
  }
  return true;
}

// A value written whole carries one version; alias state changes only its written_bytes tail.
BytePattern Run::PatternOf(ValueId value, int64_t version) const {
  const Value& info = loop_.values[value];
  const int64_t tail_bytes = info.written_by != kNoNode ? info.written_bytes : info.bytes;
  return {value, version, info.bytes, tail_bytes};
}

// What a compute step at `step` of `iteration` must find: weights as placed, alias state as
// the previous iteration left it until its writer runs, everything else this iteration's.
int64_t Run::VersionRead(ValueId value, Step step, int32_t iteration) const {
  const Value& info = loop_.values[value];
  if (info.written_by != kNoNode) {
    return step <= step_of_node_[info.written_by] ? iteration - 1 : iteration;
  }
  return VersionPlaced(value, iteration);
}

int64_t Run::VersionPlaced(ValueId value, int32_t iteration) const {
  return loop_.values[value].is_initializer || persistent_[value] ? 0 : iteration;
}

std::byte* Run::BlockData(int32_t block) const {
  return memory_[view_.blocks[block].buffer] + view_.blocks[block].offset_bytes;
}

ValueSpan Run::Span(int32_t block, const BytePattern& pattern, int64_t begin_byte) const {
  return {BlockData(block) + begin_byte, pattern, begin_byte, pattern.bytes};
}

// Before iteration 1 (and every iteration of a one-shot plan) the caller places every block
// open at the run's start; before a later iteration of a loop, the persistent ones must be
// where the last iteration left them, and only the graph inputs are placed anew.
void Run::PlaceBeforeIteration(int32_t iteration) {
  const Access caller{-1, iteration};
  for (size_t b = 0; b < view_.blocks.size() && !failed_; ++b) {
    const BlockInfo& info = view_.block_info[b];
    if (info.opened_by >= 0) continue;
    const int32_t block = static_cast<int32_t>(b);
    const ValueId value = info.value;
    if (plan_.periodic && iteration > 1 && value != kNoValue && persistent_[value]) {
      int32_t left = -1;
      for (int32_t other : view_.blocks_of.at(value)) {
        if (ledger_->Live(other) && view_.block_info[other].closed_by < 0 &&
            view_.blocks[other].buffer == view_.blocks[b].buffer &&
            view_.blocks[other].offset_bytes == view_.blocks[b].offset_bytes) {
          left = other;
        }
      }
      if (left < 0) {
        Fail(-1, caller,
             fmt::format("{} is not where iteration {} left it", view_.blocks[b].name,
                         iteration - 1),
             kRuleLoop);
        return;
      }
      if (Fail(-1, caller, ledger_->Carry(left, block, caller), kRuleDisjoint)) return;
      continue;
    }
    if (Fail(-1, caller, ledger_->Allocate(block, caller), kRuleDisjoint)) return;
    if (value == kNoValue || loop_.values[value].bytes <= 0) continue;
    const BytePattern pattern = PatternOf(value, VersionPlaced(value, iteration));
    if (routed_.experts_block[b] >= 0) {
      PlaceResidentExperts(block, pattern);
    } else {
      backend_.Place(Span(block, pattern, 0));
    }
    ledger_->Write(block, caller, pattern);
  }
}

// A partial residency holds each of its experts' slices at the expert's rank in its list.
void Run::PlaceResidentExperts(int32_t block, const BytePattern& pattern) {
  const int64_t slice_bytes = routed_.hops[routed_.experts_block[block]].slice_bytes;
  const std::vector<int32_t>& experts = plan_.residency[block].experts;
  for (size_t rank = 0; rank < experts.size(); ++rank) {
    const int64_t begin_byte = experts[rank] * slice_bytes;
    backend_.Place({BlockData(block) + static_cast<int64_t>(rank) * slice_bytes, pattern,
                    begin_byte, begin_byte + slice_bytes});
  }
}

// Each MoE node with a routed hop meets routing number iteration - 1 (routed_view.h).
void Run::DrawRoutings(int32_t iteration) {
  for (const MoeRouting& routing : routed_.routings) {
    touched_[routing.node] = SampleTouchedExperts(routing, options_.routing_seed, iteration - 1);
  }
}

// After an iteration the caller reads the graph outputs, every copy of them still held (on the
// device or stored), checks them, and frees what does not persist; a one-shot plan frees all.
void Run::CollectAfterIteration(int32_t iteration) {
  const Access caller{-1, iteration + 1};
  for (size_t b = 0; b < view_.blocks.size() && !failed_; ++b) {
    const int32_t block = static_cast<int32_t>(b);
    if (!ledger_->Live(block)) continue;
    const BlockInfo& info = view_.block_info[b];
    const ValueId value = info.value;
    if (value != kNoValue && loop_.values[value].is_graph_output && loop_.values[value].bytes > 0) {
      // An output no node produces is an input or a weight passed through, as placed.
      const bool produced = loop_.values[value].producer != kNoNode;
      const BytePattern pattern =
          PatternOf(value, produced ? iteration : VersionPlaced(value, iteration));
      if (Fail(-1, caller, ledger_->Read(block, caller, pattern), kRuleWaits)) return;
      if (const std::optional<int64_t> byte = backend_.Inspect(Span(block, pattern, 0))) {
        Fail(-1, caller,
             fmt::format("the graph output {} differs from what its producer wrote at byte {}",
                         view_.blocks[b].name, *byte),
             kRuleBytes);
        return;
      }
      ++report_.outputs_checked;
    }
    const bool persists = value != kNoValue && persistent_[value] && info.closed_by < 0;
    if (persists) continue;
    if (Fail(-1, caller, ledger_->Free(block, caller), kRuleFree)) return;
  }
}

// One iteration: one thread per stream, each walking its own steps (StreamLoop).
void Run::RunIteration(int32_t iteration) {
  ended_.assign(plan_.steps.size(), 0);
  DrawRoutings(iteration);
  const Clock::time_point start = Clock::now();
  last_end_ = start;
  std::vector<std::thread> threads;
  for (int32_t stream = 0; stream < report_.stream_count; ++stream) {
    threads.emplace_back([this, stream, iteration] { StreamLoop(stream, iteration); });
  }
  for (std::thread& thread : threads) thread.join();
  const double measured_ns = static_cast<double>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(last_end_ - start).count());
  report_.iteration_ns.push_back(static_cast<int64_t>(measured_ns / options_.time_scale));
}

// THE STREAM LOOP. A runtime's copy of it: for each step of this stream, in sequence order,
// wait until every step it waits for has ended (its stream predecessor has: it ran just
// before on this thread), run it, and announce that it ended.
void Run::StreamLoop(int32_t stream, int32_t iteration) {
  if (options_.timed) TightenSleeps();
  for (int32_t step : view_.steps_of_stream[stream]) {
    if (!WaitForDependencies(step)) return;  // another stream found a problem
    const Clock::time_point start = Clock::now();
    const Access access{step, iteration};
    Work work;
    bool ok;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ok = BeginStep(step, access, work);
    }
    ok = ok && DoWork(step, access, work);
    if (ok && options_.timed) {
      HoldStream(start, PlannedDurationNs(plan_, profile_, step), options_.time_scale);
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ok = ok && EndStep(step, access);
    }
    if (!ok) return;
    MarkEnded(step, Clock::now());
  }
}

bool Run::WaitForDependencies(int32_t step) {
  std::unique_lock<std::mutex> lock(mutex_);
  const std::vector<int32_t>& waits = plan_.steps[step].waits_for;
  static const std::vector<int32_t> kNone;
  const std::vector<int32_t>& link_waits =
      static_cast<size_t>(step) < view_.link_waits.size() ? view_.link_waits[step] : kNone;
  auto ended = [&](int32_t w) { return ended_[w] != 0; };
  step_ended_.wait(lock, [&] {
    return failed_ || (std::all_of(waits.begin(), waits.end(), ended) &&
                       std::all_of(link_waits.begin(), link_waits.end(), ended));
  });
  return !failed_;
}

void Run::MarkEnded(int32_t step, Clock::time_point end) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ended_[step] = 1;
    last_end_ = std::max(last_end_, end);
  }
  step_ended_.notify_all();
}

// Records the first problem (under mutex_, or on the caller's thread) and stops every stream.
// Returns whether there was one.
bool Run::Fail(int32_t step, Access access, const std::optional<std::string>& problem,
               const char* rule) {
  if (!problem) return false;
  if (!failed_) {
    failed_ = true;
    report_.ok = false;
    const std::string where = step < 0 ? fmt::format("before iteration {}", access.iteration)
                                       : fmt::format("step {} ({}), iteration {}", step,
                                                     step_names_[step], access.iteration);
    report_.violation = fmt::format("{}: {} (rule: {})", where, *problem, rule);
  }
  step_ended_.notify_all();
  return true;
}

// Begin (under the lock): allocate what the step opens, then enter its reads and writes in the
// ledger; the bytes are touched only once these pass.
bool Run::BeginStep(int32_t step, Access access, Work& work) {
  if (failed_) return false;
  for (int32_t block : view_.step_blocks[step].opens) {
    if (Fail(step, access, ledger_->Allocate(block, access), kRuleDisjoint)) return false;
  }
  switch (plan_.steps[step].kind) {
    case StepKind::kCompute:
      return BeginCompute(step, access, work);
    case StepKind::kPrefetch:
    case StepKind::kStore:
      return BeginTransfer(step, access, work);
    case StepKind::kDetach:
      return BeginDetach(step, access);
  }
  return false;
}

bool Run::BeginCompute(int32_t step, Access access, Work& work) {
  const StepBlocks& touched = view_.step_blocks[step];
  const Step position = plan_.steps[step].boundary;
  const bool on_host = plan_.steps[step].unit == ComputeUnit::kHost;
  work.call.node = plan_.steps[step].node;
  const auto missing = [&](ValueId value) {
    if (on_host) {
      return fmt::format("'{}' has no {} copy at host compute step {} (the host computes from it)",
                         loop_.values[value].name, profile_.tiers[view_.host_tier].name, position);
    }
    return fmt::format("'{}' has no device block at compute step {}", loop_.values[value].name,
                       position);
  };
  for (const auto& [value, block] : touched.reads) {
    if (block < 0) {
      Fail(step, access, missing(value), kRulePlaced);
      return false;
    }
    const BytePattern expected = PatternOf(value, VersionRead(value, position, access.iteration));
    if (Fail(step, access, ledger_->Read(block, access, expected), kRuleWaits)) return false;
    if (routed_.hop_of_block[block] >= 0) {
      if (!ReadRoutedSlices(step, access, block, expected, work)) return false;
      continue;
    }
    work.call.inputs.push_back(Span(block, expected, 0));
    work.input_blocks.push_back(block);
  }
  for (const auto& [value, block] : touched.updates) {
    const BytePattern updated = PatternOf(value, access.iteration);
    if (Fail(step, access, ledger_->Write(block, access, updated), kRuleWaits)) return false;
    work.call.outputs.push_back(Span(block, updated, updated.bytes - updated.tail_bytes));
  }
  for (const auto& [value, block] : touched.writes) {
    if (block < 0) {
      Fail(step, access, missing(value), kRulePlaced);
      return false;
    }
    const BytePattern written = PatternOf(value, access.iteration);
    if (Fail(step, access, ledger_->Write(block, access, written), kRuleWaits)) return false;
    work.call.outputs.push_back(Span(block, written, 0));
  }
  report_.inputs_checked += static_cast<int64_t>(touched.reads.size());
  report_.host_computes += on_host ? 1 : 0;
  return true;
}

// A transfer moves the byte range PlanView found (StepBlocks::begin_byte, bytes): a chunk's,
// or the value's last B bytes (all of it, or the part an in-place update changed), at the
// same place in both blocks.
bool Run::BeginTransfer(int32_t step, Access access, Work& work) {
  const StepBlocks& touched = view_.step_blocks[step];
  const PlanStep& planned = plan_.steps[step];
  const std::string& name = loop_.values[planned.value].name;
  if (touched.source < 0 || touched.destination < 0) {
    const TierId tier = touched.source < 0 ? planned.src_tier : planned.dst_tier;
    return !Fail(
        step, access,
        fmt::format("'{}' has no block on {} at this step", name, profile_.tiers[tier].name),
        kRulePlaced);
  }
  const int32_t hop = routed_.hop_of_step[step];
  if (hop >= 0 && !ReadRouting(step, access, routed_.hops[hop])) return false;
  if (Fail(step, access, ledger_->Read(touched.source, access, std::nullopt), kRuleWaits)) {
    return false;
  }
  const BytePattern content = *ledger_->Content(touched.source);
  if (Fail(step, access, ledger_->Write(touched.destination, access, content), kRuleWaits)) {
    return false;
  }
  if (hop >= 0) return CopyRoutedExperts(step, access, routed_.hops[hop], work);
  const int64_t begin_byte = touched.begin_byte;
  work.copies.push_back({Span(touched.destination, content, begin_byte).data,
                         Span(touched.source, content, begin_byte).data, touched.bytes});
  ++report_.transfers;
  report_.bytes_copied += touched.bytes;
  return true;
}

// A routed hop reads the routing: the router's output, which it must wait for like any reader.
bool Run::ReadRouting(int32_t step, Access access, const RoutedHop& hop) {
  const std::string& name = loop_.values[hop.router_value].name;
  if (hop.router_block < 0) {
    return !Fail(step, access, fmt::format("finds no block of the routing '{}' to read", name),
                 kRuleRouted);
  }
  const bool produced = loop_.values[hop.router_value].producer != kNoNode;
  const BytePattern routing =
      PatternOf(hop.router_value,
                produced ? access.iteration : VersionPlaced(hop.router_value, access.iteration));
  return !Fail(step, access, ledger_->Read(hop.router_block, access, routing), kRuleWaits);
}

// The picked experts no partial residency holds, each slice from where the source holds it to
// its rank in the destination, which must have room for them all.
bool Run::CopyRoutedExperts(int32_t step, Access access, const RoutedHop& hop, Work& work) {
  const StepBlocks& touched = view_.step_blocks[step];
  const std::vector<int32_t> fetched = FetchedExperts(hop, touched_.at(hop.node));
  const int64_t fetched_bytes = static_cast<int64_t>(fetched.size()) * hop.slice_bytes;
  const Block& destination = view_.blocks[touched.destination];
  if (fetched_bytes > destination.bytes) {
    return !Fail(step, access,
                 fmt::format("the routing picks {} experts not resident ({} bytes), but {} has "
                             "room for {} bytes",
                             fetched.size(), fetched_bytes, destination.name, destination.bytes),
                 kRuleRouted);
  }
  for (int32_t e : fetched) {
    const int64_t from = SliceOffsetIn(routed_, plan_, touched.source, e, hop.slice_bytes, fetched);
    const int64_t to =
        SliceOffsetIn(routed_, plan_, touched.destination, e, hop.slice_bytes, fetched);
    if (from < 0 || from + hop.slice_bytes > view_.blocks[touched.source].bytes ||
        to + hop.slice_bytes > destination.bytes) {
      return !Fail(step, access,
                   fmt::format("expert {} lies outside {} or {}", e,
                               view_.blocks[touched.source].name, destination.name),
                   kRuleRouted);
    }
    work.copies.push_back(
        {BlockData(touched.destination) + to, BlockData(touched.source) + from, hop.slice_bytes});
  }
  ++report_.transfers;
  report_.bytes_copied += fetched_bytes;
  report_.experts_fetched += static_cast<int64_t>(fetched.size());
  return true;
}

// The MoE node reads each picked expert's slice: from a partial residency that holds it, else
// from the routed block `block` at its rank among the fetched.
bool Run::ReadRoutedSlices(int32_t step, Access access, int32_t block, const BytePattern& expected,
                           Work& work) {
  const RoutedHop& hop = routed_.hops[routed_.hop_of_block[block]];
  const std::vector<char>& picked = touched_.at(hop.node);
  const std::vector<int32_t> fetched = FetchedExperts(hop, picked);
  for (int32_t held : hop.resident_blocks) {
    if (Fail(step, access, ledger_->Read(held, access, expected), kRuleWaits)) return false;
  }
  for (int32_t e = 0; e < static_cast<int32_t>(picked.size()); ++e) {
    if (!picked[e]) continue;
    int32_t where = block;
    for (int32_t held : hop.resident_blocks) {
      if (SliceOffsetIn(routed_, plan_, held, e, hop.slice_bytes, fetched) >= 0) where = held;
    }
    const int64_t offset = SliceOffsetIn(routed_, plan_, where, e, hop.slice_bytes, fetched);
    if (offset < 0) {
      return !Fail(step, access,
                   fmt::format("expert {} of '{}' is picked, but neither resident nor fetched", e,
                               loop_.values[hop.value].name),
                   kRuleRouted);
    }
    const int64_t begin_byte = e * hop.slice_bytes;
    work.call.inputs.push_back(
        {BlockData(where) + offset, expected, begin_byte, begin_byte + hop.slice_bytes});
    work.input_blocks.push_back(where);
  }
  return true;
}

// A Detach needs another block of the value holding the same bytes, whose writer it waits for
// (a home copy, or a Store's copy whose Store has ended). That copy may already have been
// freed this iteration by the host step that last reads it (docs/design.md, "Compute units"),
// or updated in place by a host step: the bytes dropped are then needed nowhere, and any later
// read of them is refused as a read of freed or stale bytes, so the verdict does not hang on
// which of the two ran first.
bool Run::BeginDetach(int32_t step, Access access) {
  const int32_t dropped = view_.step_blocks[step].dropped;
  const std::string& name = loop_.values[plan_.steps[step].value].name;
  if (dropped < 0 || !ledger_->Live(dropped) || !ledger_->Content(dropped)) {
    return !Fail(step, access, fmt::format("'{}' has no device block to drop here", name),
                 kRulePlaced);
  }
  std::optional<std::string> problem =
      fmt::format("drops {}, but no other copy holds its bytes", view_.blocks[dropped].name);
  for (int32_t other : view_.blocks_of.at(plan_.steps[step].value)) {
    const std::optional<Access>& freed = ledger_->Freed(other);
    const bool held = ledger_->Live(other) || (freed && freed->iteration == access.iteration);
    if (view_.block_info[other].device || !held) continue;
    if (UpdatedOnHost(other, access)) {
      problem.reset();  // the dropped bytes are the update's old ones, needed nowhere now
      break;
    }
    if (!(ledger_->Content(other) == ledger_->Content(dropped))) continue;
    const Access writer = ledger_->Writer(other);
    if (order_->Ordered(writer, access)) {
      problem.reset();
      break;
    }
    problem = fmt::format(
        "drops {}, but its copy {} is written by step {} ({}), which it does "
        "not wait for",
        view_.blocks[dropped].name, view_.blocks[other].name, writer.step,
        step_names_[writer.step]);
  }
  ++report_.detaches;
  return !Fail(step, access, problem, kRuleDetach);
}

// Whether `block` (a home copy on the host tier) was last written by its value's in-place
// writer running on the host, in `access`'s iteration (docs/design.md "Compute units").
bool Run::UpdatedOnHost(int32_t block, Access access) const {
  const NodeId writer_node = loop_.values[view_.block_info[block].value].written_by;
  if (writer_node == kNoNode || !ledger_->Content(block)) return false;
  const Access writer = ledger_->Writer(block);
  if (writer.step < 0 || writer.iteration != access.iteration) return false;
  const PlanStep& planned = plan_.steps[writer.step];
  return planned.kind == StepKind::kCompute && planned.unit == ComputeUnit::kHost &&
         planned.node == writer_node;
}

// The bytes, outside the lock: the ledger has ordered every access to them.
bool Run::DoWork(int32_t step, Access access, const Work& work) {
  switch (plan_.steps[step].kind) {
    case StepKind::kCompute: {
      const std::optional<InputMismatch> mismatch = backend_.Compute(work.call);
      if (!mismatch) return true;
      const ValueSpan& input = work.call.inputs[mismatch->input];
      std::lock_guard<std::mutex> lock(mutex_);
      const int32_t block = work.input_blocks[mismatch->input];
      return !Fail(step, access,
                   fmt::format("byte {} of {} is not what its producer wrote (iteration {})",
                               mismatch->byte, view_.blocks[block].name, input.pattern.version),
                   kRuleBytes);
    }
    case StepKind::kPrefetch:
    case StepKind::kStore:
      for (const Copy& copy : work.copies) {
        backend_.Copy(copy.to, copy.from, copy.bytes, view_.stream_of[step]);
      }
      return true;
    case StepKind::kDetach:
      return true;
  }
  return true;
}

// End (under the lock): free what the step closes.
bool Run::EndStep(int32_t step, Access access) {
  if (failed_) return false;
  for (int32_t block : view_.step_blocks[step].closes) {
    if (Fail(step, access, ledger_->Free(block, access), kRuleFree)) return false;
  }
  return true;
}

ExecutionReport Run::Go() {
  if (!CheckHostSteps()) return report_;
  if (Fail(-1, {-1, 1}, CheckBlocksInBuffers(), kRulePlaced)) return report_;
  for (const BufferSpec& buffer : view_.buffers) {
    memory_.push_back(backend_.Allocate(buffer));
    report_.buffer_bytes += buffer.size_bytes;
  }
  for (int32_t iteration = 1; iteration <= options_.iterations; ++iteration) {
    PlaceBeforeIteration(iteration);
    if (failed_) break;
    RunIteration(iteration);
    if (failed_) break;
    CollectAfterIteration(iteration);
    if (failed_) break;
    ++report_.iterations_run;
  }
  return report_;
}

}  // namespace

int64_t PlanBufferBytes(const Plan& plan) {
  int64_t total_bytes = plan.layout.arena_bytes;
  for (const TierBuffer& buffer : plan.tier_buffers) total_bytes += buffer.size_bytes;
  return total_bytes;
}

ExecutionReport Execute(const Graph& graph, const HardwareProfile& profile, const Plan& plan,
                        Backend& backend, const ExecuteOptions& options) {
  if (options.iterations < 1 || options.time_scale <= 0) {
    throw Error(ErrorKind::kInternal, "Execute: iterations >= 1 and time_scale > 0");
  }
  // A wait on a later step would deadlock its stream (and has no happens-before): refuse it
  // before any thread starts.
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    for (int32_t wait : plan.steps[s].waits_for) {
      if (wait >= 0 && static_cast<size_t>(wait) < s) continue;
      ExecutionReport report;
      report.ok = false;
      report.violation = fmt::format(
          "step {}: waits for step {}, which is not earlier in the sequence (rule: a step waits "
          "only for steps before it in `steps`)",
          s, wait);
      return report;
    }
  }
  Run run(graph, profile, plan, backend, options);
  return run.Go();
}

}  // namespace hyperplan::executor
