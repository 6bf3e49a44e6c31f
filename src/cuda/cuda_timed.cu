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

}  // namespace

TimedRun TimeOnDevice(const executor::DeviceSchedule& schedule, const Graph& graph,
                      const Plan& plan, const TimedOptions& options) {
  EnsureDevice();
  Resources held;
  // The buffers: the arena on the device, the tier buffers pinned.
  std::vector<std::byte*> base;
  for (const executor::BufferSpec& spec : schedule.buffers) {
    void* raw = nullptr;
    const size_t size = static_cast<size_t>(std::max<int64_t>(spec.size_bytes, 1));
    if (spec.device) {
      Check(cudaMalloc(&raw, size), "cudaMalloc (the arena)");
      held.device_buffers.push_back(raw);
    } else {
      Check(cudaHostAlloc(&raw, size, cudaHostAllocDefault), "cudaHostAlloc (a tier buffer)");
      held.host_buffers.push_back(raw);
    }
    base.push_back(static_cast<std::byte*>(raw));
  }
  for (int32_t s = 0; s < schedule.stream_count; ++s) {
    cudaStream_t stream = nullptr;
    Check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    held.streams.push_back(stream);
  }
  const size_t steps = schedule.ops.size();
  std::vector<cudaEvent_t> start(steps), end(steps);
  for (size_t s = 0; s < steps; ++s) {
    start[s] = held.NewEvent();
    end[s] = held.NewEvent();
  }
  const cudaEvent_t begin = held.NewEvent();
  std::vector<cudaEvent_t> joined(held.streams.size());
  for (cudaEvent_t& event : joined) event = held.NewEvent();

  TimedRun run;
  // Real GEMMs for MatMul nodes: one workspace for the largest operands (contents unchecked).
  std::unique_ptr<LtGemm> gemm;
  std::vector<std::optional<GemmShape>> shapes(steps);
  if (options.gemm) {
    gemm = LtGemm::Load(run.gemm_note);
    int64_t largest_bytes = 0;
    for (size_t s = 0; s < steps && gemm; ++s) {
      if (plan.steps[s].kind != StepKind::kCompute) continue;
      shapes[s] = MatMulShape(graph, plan.steps[s].node);
      if (!shapes[s]) continue;
      const GemmShape& shape = *shapes[s];
      largest_bytes =
          std::max(largest_bytes, 2 * (shape.m * shape.k + shape.k * shape.n + shape.m * shape.n));
    }
    if (gemm && largest_bytes > 0) {
      Check(cudaMalloc(&held.gemm_buffer, static_cast<size_t>(largest_bytes)),
            "cudaMalloc (GEMM operands)");
      Check(cudaMemset(held.gemm_buffer, 0, static_cast<size_t>(largest_bytes)), "cudaMemset");
    }
  }

  // The gate holds every stream while the host issues an iteration (see device.h).
  run.gate_ns = std::min<int64_t>(1'000'000 + 25'000 * static_cast<int64_t>(steps), 2'000'000'000);
  for (int32_t iteration = 0; iteration < options.iterations; ++iteration) {
    cudaStream_t compute = held.streams[0];
    LaunchHold(run.gate_ns, compute);
    Check(cudaEventRecord(begin, compute), "cudaEventRecord");
    for (size_t i = 1; i < held.streams.size(); ++i) {
      Check(cudaStreamWaitEvent(held.streams[i], begin, 0), "cudaStreamWaitEvent");
    }
    const auto issue_start = std::chrono::steady_clock::now();
    int64_t gemm_nodes = 0;
    for (size_t s = 0; s < steps; ++s) {
      const executor::DeviceOp& op = schedule.ops[s];
      cudaStream_t stream = held.streams[op.stream];
      for (int32_t wait : op.wait_steps) {
        Check(cudaStreamWaitEvent(stream, end[wait], 0), "cudaStreamWaitEvent");
      }
      Check(cudaEventRecord(start[s], stream), "cudaEventRecord");
      switch (op.kind) {
        case executor::DeviceOpKind::kHold: {
          bool ran = false;
          if (gemm && shapes[s] && held.gemm_buffer != nullptr) {
            const GemmShape& shape = *shapes[s];
            auto* a = static_cast<std::byte*>(held.gemm_buffer);
            std::byte* b = a + 2 * shape.m * shape.k;
            std::byte* d = b + 2 * shape.k * shape.n;
            ran = gemm->Run(CUDA_R_16BF, shape.m, shape.n, shape.k, a, b, d, stream, run.gemm_note);
            gemm_nodes += ran ? 1 : 0;
          }
          if (!ran) LaunchHold(op.hold_ns, stream);
          break;
        }
        case executor::DeviceOpKind::kCopy:
          if (op.bytes > 0) {
            Check(cudaMemcpyAsync(base[op.dst_buffer] + op.dst_offset_bytes,
                                  base[op.src_buffer] + op.src_offset_bytes,
                                  static_cast<size_t>(op.bytes), cudaMemcpyDefault, stream),
                  "cudaMemcpyAsync (a transfer)");
          }
          break;
        case executor::DeviceOpKind::kNone:
          break;
      }
      Check(cudaEventRecord(end[s], stream), "cudaEventRecord");
    }
    run.max_issue_ns =
        std::max<int64_t>(run.max_issue_ns, std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                std::chrono::steady_clock::now() - issue_start)
                                                .count());
    run.gemm_nodes = gemm_nodes;
    for (size_t i = 1; i < held.streams.size(); ++i) {
      Check(cudaEventRecord(joined[i], held.streams[i]), "cudaEventRecord");
      Check(cudaStreamWaitEvent(compute, joined[i], 0), "cudaStreamWaitEvent");
    }
    Check(cudaStreamSynchronize(compute), "cudaStreamSynchronize (an iteration)");
    std::vector<StepTiming> timings(steps);
    for (size_t s = 0; s < steps; ++s) {
      timings[s].start_ns = ElapsedNs(begin, start[s]);
      timings[s].end_ns = ElapsedNs(begin, end[s]);
    }
    run.iterations.push_back(std::move(timings));
  }
  return run;
}

}  // namespace hyperplan::cuda
