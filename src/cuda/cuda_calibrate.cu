// calibrate's measurements on device 0 (see device.h, RunCalibration; calibrate/calibration.h
// says what each figure is). Every time is taken with CUDA events around the work on the
// device, the median of several repeats after one warm-up.
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <functional>

#include "cuda/cuda_common.h"
#include "cuda/cuda_gemm.h"
#include "cuda/device.h"
#include "hyperplan/error.h"

namespace hyperplan::cuda {
namespace {

struct Buffers {
  void* host = nullptr;
  void* device = nullptr;
  void* device_other = nullptr;
  std::vector<cudaStream_t> streams;
  std::vector<cudaEvent_t> events;
  ~Buffers() {
    for (cudaEvent_t event : events) cudaEventDestroy(event);
    for (cudaStream_t stream : streams) cudaStreamDestroy(stream);
    cudaFreeHost(host);
    cudaFree(device);
    cudaFree(device_other);
  }
};

// The median over `repeats` of `work` timed on `stream` (after one untimed warm-up), in ns.
int64_t MedianNs(int repeats, cudaStream_t stream, cudaEvent_t from, cudaEvent_t to,
                 const std::function<void()>& work) {
  work();
  Check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (warm-up)");
  std::vector<int64_t> times_ns;
  for (int r = 0; r < repeats; ++r) {
    Check(cudaEventRecord(from, stream), "cudaEventRecord");
    work();
    Check(cudaEventRecord(to, stream), "cudaEventRecord");
    Check(cudaEventSynchronize(to), "cudaEventSynchronize");
    float ms = 0;
    Check(cudaEventElapsedTime(&ms, from, to), "cudaEventElapsedTime");
    times_ns.push_back(std::max<int64_t>(1, std::llround(static_cast<double>(ms) * 1e6)));
  }
  std::sort(times_ns.begin(), times_ns.end());
  return times_ns[times_ns.size() / 2];
}

int64_t BytesPerS(int64_t bytes, int64_t ns) {
  return static_cast<int64_t>(static_cast<long double>(bytes) * 1e9L / ns);
}

__global__ void InitBf16(__nv_bfloat16* data, int64_t count) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    data[i] = __float2bfloat16(static_cast<float>(i % 7 - 3) * 0.125f);
  }
}

__global__ void InitFp8(__nv_fp8_e4m3* data, int64_t count) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    data[i] = __nv_fp8_e4m3(static_cast<float>(i % 7 - 3) * 0.125f);
  }
}

std::string DateUtc() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "unknown";
  return name;
}

// One direction: each size on one stream, then `total` bytes split over 1, 2, 4 streams, then
// one stream beside a kernel that keeps the SMs and HBM busy.

void MeasureDirection(bool to_device, const std::vector<int64_t>& sizes, int repeats,
                      int64_t total_bytes, Buffers& held, calibrate::DirectionMeasurement& out) {
  cudaStream_t main = held.streams[0];
  cudaEvent_t from = held.events[0];
  cudaEvent_t to = held.events[1];
  auto* host = static_cast<std::byte*>(held.host);
  auto* device = static_cast<std::byte*>(held.device);
  const auto copy = [&](int64_t offset, int64_t bytes, cudaStream_t stream) {
    void* dst = to_device ? static_cast<void*>(device + offset) : host + offset;
    const void* src = to_device ? static_cast<const void*>(host + offset) : device + offset;
    Check(cudaMemcpyAsync(dst, src, static_cast<size_t>(bytes),
                          to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync");
  };
  for (int64_t bytes : sizes) {
    out.samples.push_back(
        {bytes, MedianNs(repeats, main, from, to, [&] { copy(0, bytes, main); })});
  }
  for (int32_t streams : {1, 2, 4}) {
    const int64_t share = total_bytes / streams;
    const int64_t ns = MedianNs(repeats, main, from, to, [&] {
      // The others start after `from` and `main` waits for them before `to`.
      Check(cudaEventRecord(held.events[2], main), "cudaEventRecord");
      for (int32_t s = 1; s < streams; ++s) {
        Check(cudaStreamWaitEvent(held.streams[s], held.events[2], 0), "cudaStreamWaitEvent");
      }
      for (int32_t s = 0; s < streams; ++s) copy(s * share, share, held.streams[s]);
      for (int32_t s = 1; s < streams; ++s) {
        Check(cudaEventRecord(held.events[2 + s], held.streams[s]), "cudaEventRecord");
        Check(cudaStreamWaitEvent(main, held.events[2 + s], 0), "cudaStreamWaitEvent");
      }
    });
    out.streams.push_back({streams, BytesPerS(share * streams, ns)});
  }
  // Beside a busy kernel on another stream, held long enough to cover every repeat.
  const int64_t alone_ns = std::max<int64_t>(
      1, out.samples.empty() ? 1
                             : out.samples.back().time_ns * total_bytes /
                                   std::max<int64_t>(1, out.samples.back().bytes));
  LaunchBusy(static_cast<float*>(held.device_other), total_bytes, alone_ns * (repeats + 2) * 4,
             held.streams[4]);
  const int64_t beside_ns = MedianNs(repeats, main, from, to, [&] { copy(0, total_bytes, main); });
  Check(cudaStreamSynchronize(held.streams[4]), "cudaStreamSynchronize (busy kernel)");
  out.with_kernel_bandwidth_bytes_per_s = BytesPerS(total_bytes, beside_ns);
}

void MeasureGemms(bool quick, Buffers& held, calibrate::Calibration& out) {
  std::unique_ptr<LtGemm> gemm = LtGemm::Load(out.gemm_note);
  if (!gemm) return;
  const int64_t n = quick ? 2048 : 8192;
  void* operands = nullptr;
  const size_t bytes = static_cast<size_t>(2 * n * n * 3);
  if (cudaMalloc(&operands, bytes) != cudaSuccess) {
    out.gemm_note = "cudaMalloc of the GEMM operands failed";
    return;
  }
  std::unique_ptr<void, decltype(&cudaFree)> owned(operands, &cudaFree);
  auto* a = static_cast<std::byte*>(operands);
  std::byte* b = a + 2 * n * n;
  std::byte* d = b + 2 * n * n;
  cudaStream_t main = held.streams[0];
  const double flops = 2.0 * static_cast<double>(n) * n * n;
  const auto measure = [&](cudaDataType_t type, int64_t& flops_per_s) {
    bool ok = true;
    const int64_t ns = MedianNs(quick ? 3 : 10, main, held.events[0], held.events[1], [&] {
      ok = ok && gemm->Run(type, n, n, n, a, b, d, main, out.gemm_note);
    });
    if (ok) flops_per_s = static_cast<int64_t>(flops * 1e9 / static_cast<double>(ns));
  };
  InitBf16<<<4096, 256, 0, main>>>(reinterpret_cast<__nv_bfloat16*>(a), 2 * n * n);
  Check(cudaGetLastError(), "the bf16 init kernel's launch");
  measure(CUDA_R_16BF, out.bf16_flops_per_s);
  InitFp8<<<4096, 256, 0, main>>>(reinterpret_cast<__nv_fp8_e4m3*>(a), 4 * n * n);
  Check(cudaGetLastError(), "the fp8 init kernel's launch");
  measure(CUDA_R_8F_E4M3, out.fp8_flops_per_s);
  Check(cudaStreamSynchronize(main), "cudaStreamSynchronize (GEMMs)");
}

}  // namespace

calibrate::Calibration RunCalibration(const CalibrateOptions& options) {
  const DeviceInfo device = OpenDevice();
  calibrate::Calibration out;
  out.device_name = device.name;
  out.host_name = HostName();
  out.date_utc = DateUtc();
  size_t free_bytes = 0, total_bytes = 0;
  Check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  out.device_memory_bytes = static_cast<int64_t>(total_bytes);

  std::vector<int64_t> sizes;
  const int64_t largest = options.quick ? (16 << 20) : (256 << 20);
  for (int64_t bytes = 4096; bytes <= largest; bytes *= options.quick ? 16 : 4) {
    sizes.push_back(bytes);
  }
  const int repeats = options.quick ? 3 : 7;
  const int64_t split_bytes = options.quick ? (16 << 20) : (64 << 20);
  const int64_t hbm_bytes = options.quick ? (64 << 20) : (1LL << 30);

  Buffers held;
  Check(cudaHostAlloc(&held.host, static_cast<size_t>(largest), cudaHostAllocDefault),
        "cudaHostAlloc");
  Check(cudaMalloc(&held.device, static_cast<size_t>(std::max(largest, hbm_bytes))), "cudaMalloc");
  Check(cudaMalloc(&held.device_other, static_cast<size_t>(std::max(largest, hbm_bytes))),
        "cudaMalloc");
  Check(cudaMemset(held.device_other, 0, static_cast<size_t>(std::max(largest, hbm_bytes))),
        "cudaMemset");
  for (int s = 0; s < 5; ++s) {
    cudaStream_t stream = nullptr;
    Check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    held.streams.push_back(stream);
  }
  for (int e = 0; e < 8; ++e) {
    cudaEvent_t event = nullptr;
    Check(cudaEventCreate(&event), "cudaEventCreate");
    held.events.push_back(event);
  }
  MeasureDirection(true, sizes, repeats, split_bytes, held, out.host_to_device);
  MeasureDirection(false, sizes, repeats, split_bytes, held, out.device_to_host);
  const int64_t hbm_ns = MedianNs(repeats, held.streams[0], held.events[0], held.events[1], [&] {
    Check(cudaMemcpyAsync(held.device_other, held.device, static_cast<size_t>(hbm_bytes),
                          cudaMemcpyDeviceToDevice, held.streams[0]),
          "cudaMemcpyAsync (device to device)");
  });
  out.hbm_bandwidth_bytes_per_s = BytesPerS(2 * hbm_bytes, hbm_ns);
  MeasureGemms(options.quick, held, out);
  return out;
}

}  // namespace hyperplan::cuda
