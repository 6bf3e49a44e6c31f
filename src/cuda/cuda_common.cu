// The CUDA layer's shared helpers and kernels (see cuda_common.h).
#include <climits>

#include "cuda/cuda_common.h"
#include "cuda/device.h"
#include "executor/byte_pattern_word.h"
#include "hyperplan/error.h"

namespace hyperplan::cuda {
namespace {

__device__ inline uint64_t GlobalTimerNs() {
  uint64_t ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  return ns;
}

__global__ void HoldKernel(int64_t ns) {
  const uint64_t start = GlobalTimerNs();
  while (GlobalTimerNs() - start < static_cast<uint64_t>(ns)) {
  }
}

__global__ void BusyKernel(float* buffer, int64_t count, int64_t ns) {
  const uint64_t start = GlobalTimerNs();
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  while (GlobalTimerNs() - start < static_cast<uint64_t>(ns)) {
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
         i += stride) {
      buffer[i] = buffer[i] * 0.5f + 1.0f;
    }
  }
}

__global__ void FillKernel(unsigned char* data, int32_t value, int64_t version, int64_t bytes,
                           int64_t tail_bytes, int64_t begin_byte, int64_t end_byte) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t j = begin_byte + blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
       j < end_byte; j += stride) {
    data[j - begin_byte] = executor::PatternByte(value, version, bytes, tail_bytes, j);
  }
}

__global__ void CheckKernel(const unsigned char* data, int32_t value, int64_t version,
                            int64_t bytes, int64_t tail_bytes, int64_t begin_byte, int64_t end_byte,
                            unsigned long long* first) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t j = begin_byte + blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
       j < end_byte; j += stride) {
    if (data[j - begin_byte] != executor::PatternByte(value, version, bytes, tail_bytes, j)) {
      atomicMin(first, static_cast<unsigned long long>(j));
    }
  }
}

constexpr int kThreads = 256;

unsigned int Blocks(int64_t count) {
  const int64_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned int>(blocks < 1 ? 1 : (blocks > 8192 ? 8192 : blocks));
}

}  // namespace

std::string Describe(cudaError_t status, const char* what) {
  return std::string(what) + ": " + cudaGetErrorName(status) + ": " + cudaGetErrorString(status);
}

void Check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw Error(ErrorKind::kInternal, Describe(status, what));
}

void EnsureDevice() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    throw Error(ErrorKind::kNoDevice,
                "no usable GPU: " + Describe(status, "cudaGetDeviceCount") + " (docs/gpu.md)");
  }
  if (count < 1) {
    throw Error(ErrorKind::kNoDevice, "no usable GPU: cudaGetDeviceCount found 0 devices");
  }
  Check(cudaSetDevice(0), "cudaSetDevice(0)");
}

void LaunchHold(int64_t ns, cudaStream_t stream) {
  HoldKernel<<<1, 1, 0, stream>>>(ns);
  Check(cudaGetLastError(), "the hold kernel's launch");
}

void LaunchBusy(float* buffer, int64_t bytes, int64_t ns, cudaStream_t stream) {
  const int64_t count = bytes / static_cast<int64_t>(sizeof(float));
  BusyKernel<<<Blocks(count), kThreads, 0, stream>>>(buffer, count, ns);
  Check(cudaGetLastError(), "the busy kernel's launch");
}

void LaunchFill(std::byte* data, const executor::BytePattern& pattern, int64_t begin_byte,
                int64_t end_byte, cudaStream_t stream) {
  if (end_byte <= begin_byte) return;
  FillKernel<<<Blocks(end_byte - begin_byte), kThreads, 0, stream>>>(
      reinterpret_cast<unsigned char*>(data), pattern.value, pattern.version, pattern.bytes,
      pattern.tail_bytes, begin_byte, end_byte);
  Check(cudaGetLastError(), "the fill kernel's launch");
}

int64_t FirstMismatch(const std::byte* data, const executor::BytePattern& pattern,
                      int64_t begin_byte, int64_t end_byte, unsigned long long* scratch,
                      cudaStream_t stream) {
  if (end_byte <= begin_byte) return -1;
  Check(cudaMemsetAsync(scratch, 0xff, sizeof(unsigned long long), stream), "cudaMemsetAsync");
  CheckKernel<<<Blocks(end_byte - begin_byte), kThreads, 0, stream>>>(
      reinterpret_cast<const unsigned char*>(data), pattern.value, pattern.version, pattern.bytes,
      pattern.tail_bytes, begin_byte, end_byte, scratch);
  Check(cudaGetLastError(), "the check kernel's launch");
  unsigned long long first = 0;
  Check(cudaMemcpyAsync(&first, scratch, sizeof(first), cudaMemcpyDeviceToHost, stream),
        "cudaMemcpyAsync (check result)");
  Check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (check)");
  return first == ULLONG_MAX ? -1 : static_cast<int64_t>(first);
}

bool Built() { return true; }

DeviceInfo OpenDevice() {
  EnsureDevice();
  cudaDeviceProp properties{};
  Check(cudaGetDeviceProperties(&properties, 0), "cudaGetDeviceProperties");
  DeviceInfo info;
  info.name = properties.name;
  info.memory_bytes = static_cast<int64_t>(properties.totalGlobalMem);
  info.multiprocessors = properties.multiProcessorCount;
  return info;
}

}  // namespace hyperplan::cuda
