// The timed pass on a GPU (see device.h, TimeOnDevice).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <vector>

#include "cuda/cuda_common.h"
#include "cuda/cuda_gemm.h"
#include "cuda/device.h"
#include "hyperplan/error.h"

namespace hyperplan::cuda {
namespace {

// Everything one timed run holds, released in the destructor (errors throw out of TimeOnDevice).
struct Resources {
  std::vector<void*> device_buffers;
  std::vector<void*> host_buffers;
  std::vector<cudaStream_t> streams;
  std::vector<cudaEvent_t> events;
  void* gemm_buffer = nullptr;
  ~Resources() {
    for (cudaEvent_t event : events) cudaEventDestroy(event);
    for (cudaStream_t stream : streams) cudaStreamDestroy(stream);
    for (void* buffer : device_buffers) cudaFree(buffer);
    for (void* buffer : host_buffers) cudaFreeHost(buffer);
    cudaFree(gemm_buffer);
  }
  cudaEvent_t NewEvent() {
    cudaEvent_t event = nullptr;
    Check(cudaEventCreate(&event), "cudaEventCreate");
    events.push_back(event);
    return event;
  }
};

// A MatMul node as one GEMM: A [..., m, k] x B [k, n] (B two-dimensional, a weight).
struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
};

std::optional<GemmShape> MatMulShape(const Graph& graph, NodeId node) {
  const Node& matmul = graph.nodes[node];
  if (matmul.op_type != "MatMul" || matmul.inputs.size() != 2) return std::nullopt;
  const Value& a = graph.values[matmul.inputs[0]];
  const Value& b = graph.values[matmul.inputs[1]];
  if (a.shape.size() < 2 || b.shape.size() != 2 || a.shape.back() != b.shape[0]) {
    return std::nullopt;
  }
  GemmShape shape;
  shape.m = 1;
  for (size_t d = 0; d + 1 < a.shape.size(); ++d) shape.m *= a.shape[d];
  shape.k = b.shape[0];
  shape.n = b.shape[1];
  if (shape.m <= 0 || shape.n <= 0 || shape.k <= 0) return std::nullopt;
  return shape;
}

int64_t ElapsedNs(cudaEvent_t from, cudaEvent_t to) {
  float ms = 0;
  Check(cudaEventElapsedTime(&ms, from, to), "cudaEventElapsedTime");
  return std::llround(static_cast<double>(ms) * 1e6);
}

// One timed run, section by section: the buffers, streams and events, the optional GEMM
// operands, then each iteration issued behind the gate and read back from the events.
class TimedPass {
 public:
  TimedPass(const executor::DeviceSchedule& schedule, const Graph& graph, const Plan& plan,
            const TimedOptions& options)
      : schedule_(schedule), graph_(graph), plan_(plan), options_(options) {}

  TimedRun Run() {
    AllocateBuffers();
    CreateStreamsAndEvents();
    if (options_.gemm) PrepareGemms();
    // The gate holds every stream while the host issues an iteration (see device.h).
    run_.gate_ns =
        std::min<int64_t>(1'000'000 + 25'000 * static_cast<int64_t>(StepCount()), 2'000'000'000);
    for (int32_t iteration = 0; iteration < options_.iterations; ++iteration) RunIteration();
    return std::move(run_);
  }

 private:
  size_t StepCount() const { return schedule_.ops.size(); }

  // The arena on the device, the tier buffers pinned.
  void AllocateBuffers() {
    for (const executor::BufferSpec& spec : schedule_.buffers) {
      void* raw = nullptr;
      const size_t size = static_cast<size_t>(std::max<int64_t>(spec.size_bytes, 1));
      if (spec.device) {
        Check(cudaMalloc(&raw, size), "cudaMalloc (the arena)");
        held_.device_buffers.push_back(raw);
      } else {
        Check(cudaHostAlloc(&raw, size, cudaHostAllocDefault), "cudaHostAlloc (a tier buffer)");
        held_.host_buffers.push_back(raw);
      }
      base_.push_back(static_cast<std::byte*>(raw));
    }
  }

  void CreateStreamsAndEvents() {
    for (int32_t s = 0; s < schedule_.stream_count; ++s) {
      cudaStream_t stream = nullptr;
      Check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
      held_.streams.push_back(stream);
    }
    start_.resize(StepCount());
    end_.resize(StepCount());
    for (size_t s = 0; s < StepCount(); ++s) {
      start_[s] = held_.NewEvent();
      end_[s] = held_.NewEvent();
    }
    begin_ = held_.NewEvent();
    joined_.resize(held_.streams.size());
    for (cudaEvent_t& event : joined_) event = held_.NewEvent();
  }

  // Real GEMMs for MatMul nodes: one workspace for the largest operands (contents unchecked).
  void PrepareGemms() {
    gemm_ = LtGemm::Load(run_.gemm_note);
    shapes_.resize(StepCount());
    int64_t largest_bytes = 0;
    for (size_t s = 0; s < StepCount() && gemm_; ++s) {
      // A host step's MatMul runs on the host: its hold stands for it (cuda_schedule.h).
      if (plan_.steps[s].kind != StepKind::kCompute || plan_.steps[s].unit == ComputeUnit::kHost) {
        continue;
      }
      shapes_[s] = MatMulShape(graph_, plan_.steps[s].node);
      if (!shapes_[s]) continue;
      const GemmShape& shape = *shapes_[s];
      largest_bytes =
          std::max(largest_bytes, 2 * (shape.m * shape.k + shape.k * shape.n + shape.m * shape.n));
    }
    if (gemm_ && largest_bytes > 0) {
      Check(cudaMalloc(&held_.gemm_buffer, static_cast<size_t>(largest_bytes)),
            "cudaMalloc (GEMM operands)");
      Check(cudaMemset(held_.gemm_buffer, 0, static_cast<size_t>(largest_bytes)), "cudaMemset");
    }
  }

  void RunIteration() {
    cudaStream_t compute = held_.streams[0];
    LaunchHold(run_.gate_ns, compute);
    Check(cudaEventRecord(begin_, compute), "cudaEventRecord");
    for (size_t i = 1; i < held_.streams.size(); ++i) {
      Check(cudaStreamWaitEvent(held_.streams[i], begin_, 0), "cudaStreamWaitEvent");
    }
    const auto issue_start = std::chrono::steady_clock::now();
    int64_t gemm_nodes = 0;
    for (size_t s = 0; s < StepCount(); ++s) gemm_nodes += IssueStep(s) ? 1 : 0;
    const int64_t issue_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::steady_clock::now() - issue_start)
                                 .count();
    run_.max_issue_ns = std::max<int64_t>(run_.max_issue_ns, issue_ns);
    run_.gemm_nodes = gemm_nodes;
    JoinStreams(compute);
    Check(cudaStreamSynchronize(compute), "cudaStreamSynchronize (an iteration)");
    run_.iterations.push_back(ReadTimings());
  }

  // Issues step `s` on its stream between its two events; true when it ran as a real GEMM.
  bool IssueStep(size_t s) {
    const executor::DeviceOp& op = schedule_.ops[s];
    cudaStream_t stream = held_.streams[op.stream];
    for (int32_t wait : op.wait_steps) {
      Check(cudaStreamWaitEvent(stream, end_[wait], 0), "cudaStreamWaitEvent");
    }
    Check(cudaEventRecord(start_[s], stream), "cudaEventRecord");
    bool ran_gemm = false;
    switch (op.kind) {
      case executor::DeviceOpKind::kHold:
        ran_gemm = RunGemm(s, stream);
        if (!ran_gemm) LaunchHold(op.hold_ns, stream);
        break;
      case executor::DeviceOpKind::kCopy:
        if (op.bytes > 0) {
          Check(cudaMemcpyAsync(base_[op.dst_buffer] + op.dst_offset_bytes,
                                base_[op.src_buffer] + op.src_offset_bytes,
                                static_cast<size_t>(op.bytes), cudaMemcpyDefault, stream),
                "cudaMemcpyAsync (a transfer)");
        }
        break;
      case executor::DeviceOpKind::kNone:
        break;
    }
    Check(cudaEventRecord(end_[s], stream), "cudaEventRecord");
    return ran_gemm;
  }

  bool RunGemm(size_t s, cudaStream_t stream) {
    if (!gemm_ || !shapes_[s] || held_.gemm_buffer == nullptr) return false;
    const GemmShape& shape = *shapes_[s];
    auto* a = static_cast<std::byte*>(held_.gemm_buffer);
    std::byte* b = a + 2 * shape.m * shape.k;
    std::byte* d = b + 2 * shape.k * shape.n;
    return gemm_->Run(CUDA_R_16BF, shape.m, shape.n, shape.k, a, b, d, stream, run_.gemm_note);
  }

  // The compute stream waits for every other stream, so one synchronize ends the iteration.
  void JoinStreams(cudaStream_t compute) {
    for (size_t i = 1; i < held_.streams.size(); ++i) {
      Check(cudaEventRecord(joined_[i], held_.streams[i]), "cudaEventRecord");
      Check(cudaStreamWaitEvent(compute, joined_[i], 0), "cudaStreamWaitEvent");
    }
  }

  std::vector<StepTiming> ReadTimings() const {
    std::vector<StepTiming> timings(StepCount());
    for (size_t s = 0; s < StepCount(); ++s) {
      timings[s].start_ns = ElapsedNs(begin_, start_[s]);
      timings[s].end_ns = ElapsedNs(begin_, end_[s]);
    }
    return timings;
  }

  const executor::DeviceSchedule& schedule_;
  const Graph& graph_;
  const Plan& plan_;
  const TimedOptions& options_;
  Resources held_;
  std::vector<std::byte*> base_;
  std::vector<cudaEvent_t> start_, end_, joined_;
  cudaEvent_t begin_ = nullptr;
  std::unique_ptr<LtGemm> gemm_;
  std::vector<std::optional<GemmShape>> shapes_;  // by step (with --gemm)
  TimedRun run_;
};

}  // namespace

TimedRun TimeOnDevice(const executor::DeviceSchedule& schedule, const Graph& graph,
                      const Plan& plan, const TimedOptions& options) {
  EnsureDevice();
  return TimedPass(schedule, graph, plan, options).Run();
}

}  // namespace hyperplan::cuda
