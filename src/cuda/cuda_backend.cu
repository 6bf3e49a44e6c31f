// The reference executor's Backend on a GPU (see device.h, MakeCudaBackend).
#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>

#include "cuda/cuda_common.h"
#include "cuda/device.h"
#include "hyperplan/error.h"

namespace hyperplan::cuda {
namespace {

class CudaBackend : public executor::Backend {
 public:
  explicit CudaBackend(executor::CheckMode mode) : mode_(mode) {
    EnsureDevice();
    Check(cudaMalloc(&scratch_, sizeof(unsigned long long)), "cudaMalloc (check scratch)");
  }
  ~CudaBackend() override {
    for (auto& [index, stream] : streams_) cudaStreamDestroy(stream);
    cudaFree(scratch_);
  }

  std::byte* Allocate(const executor::BufferSpec& spec) override {
    const int64_t alignment_bytes = std::max<int64_t>(spec.alignment_bytes, 256);
    const size_t size =
        static_cast<size_t>(std::max<int64_t>(spec.size_bytes, 1) + alignment_bytes);
    void* raw = nullptr;
    cudaError_t status =
        spec.device ? cudaMalloc(&raw, size) : cudaHostAlloc(&raw, size, cudaHostAllocDefault);
    if (status != cudaSuccess) {
      Record(Describe(status, spec.device ? "cudaMalloc (the arena)" : "cudaHostAlloc"));
      throw Error(ErrorKind::kInternal, *Failure());
    }
    const uintptr_t address = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t mask = static_cast<uintptr_t>(alignment_bytes) - 1;
    auto* data = reinterpret_cast<std::byte*>((address + mask) & ~mask);
    // Zeroed, so a read of never-written bytes fails its pattern check.
    if (spec.device) {
      Check(cudaMemset(raw, 0, size), "cudaMemset (the arena)");
    } else {
      std::memset(raw, 0, size);
    }
    std::lock_guard<std::mutex> lock(mutex_);
    allocations_[data] = {raw, spec.device, spec.size_bytes};
    return data;
  }

  void Release(std::byte* data, const executor::BufferSpec& /*spec*/) override {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = allocations_.find(data);
    if (found == allocations_.end()) return;
    if (found->second.device) {
      cudaFree(found->second.raw);
    } else {
      cudaFreeHost(found->second.raw);
    }
    allocations_.erase(found);
  }

  void Copy(std::byte* dst, const std::byte* src, int64_t bytes, int32_t stream) override {
    if (bytes <= 0) return;
    try {  // on a stream thread: nothing may escape
      cudaStream_t handle = StreamFor(stream);
      Check(cudaMemcpyAsync(dst, src, static_cast<size_t>(bytes), cudaMemcpyDefault, handle),
            "cudaMemcpyAsync (a transfer)");
      Check(cudaStreamSynchronize(handle), "cudaStreamSynchronize (a transfer)");
    } catch (const Error& error) {
      Record(error.what());
    }
  }

  std::optional<executor::InputMismatch> Compute(const executor::ComputeCall& call) override {
    for (size_t i = 0; i < call.inputs.size(); ++i) {
      if (const std::optional<int64_t> byte = Inspect(call.inputs[i])) {
        return executor::InputMismatch{i, *byte};
      }
    }
    for (const executor::ValueSpan& output : call.outputs) Place(output);
    return std::nullopt;
  }

  void Place(const executor::ValueSpan& span) override {
    if (!OnDevice(span.data)) {
      executor::FillPattern(span.data, span.pattern, span.begin_byte, span.end_byte);
      return;
    }
    try {
      cudaStream_t handle = StreamFor(0);
      LaunchFill(span.data, span.pattern, span.begin_byte, span.end_byte, handle);
      Check(cudaStreamSynchronize(handle), "cudaStreamSynchronize (fill)");
    } catch (const Error& error) {
      Record(error.what());
    }
  }

  std::optional<int64_t> Inspect(const executor::ValueSpan& span) override {
    if (!OnDevice(span.data)) {
      return executor::FindMismatch(span.data, span.pattern, span.begin_byte, span.end_byte, mode_);
    }
    try {
      // Every byte, whatever the mode: a kernel reads them faster than the host samples.
      std::lock_guard<std::mutex> lock(check_mutex_);
      const int64_t byte = FirstMismatch(span.data, span.pattern, span.begin_byte, span.end_byte,
                                         scratch_, StreamFor(0));
      if (byte >= 0) return byte;
    } catch (const Error& error) {
      Record(error.what());
    }
    return std::nullopt;
  }

  std::optional<std::string> Failure() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return failure_;
  }

 private:
  struct Allocation {
    void* raw = nullptr;
    bool device = false;
    int64_t size_bytes = 0;
  };

  void Record(const std::string& problem) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!failure_) failure_ = problem;
  }

  cudaStream_t StreamFor(int32_t stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    cudaStream_t& handle = streams_[stream];
    if (handle == nullptr) {
      Check(cudaStreamCreateWithFlags(&handle, cudaStreamNonBlocking), "cudaStreamCreate");
    }
    return handle;
  }

  bool OnDevice(const std::byte* data) const {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [begin, allocation] : allocations_) {
      if (allocation.device && data >= begin && data <= begin + allocation.size_bytes) {
        return true;
      }
    }
    return false;
  }

  executor::CheckMode mode_;
  mutable std::mutex mutex_;  // guards everything below but the scratch word
  std::map<int32_t, cudaStream_t> streams_;
  std::map<std::byte*, Allocation> allocations_;
  std::optional<std::string> failure_;
  std::mutex check_mutex_;  // one check at a time uses the scratch word
  unsigned long long* scratch_ = nullptr;
};

}  // namespace

std::unique_ptr<executor::Backend> MakeCudaBackend(executor::CheckMode mode) {
  return std::make_unique<CudaBackend>(mode);
}

}  // namespace hyperplan::cuda
