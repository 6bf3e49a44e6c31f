// Helpers the CUDA layer's .cu files share (see device.h): error checks that become
// hyperplan::Error, the device check every entry point makes first, and the host wrappers of
// the kernels more than one file launches (so no file needs relocatable device code).
// Cost: none beyond the calls. Limits: device 0 only.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "executor/byte_pattern.h"

namespace hyperplan::cuda {

// "what: cudaErrorName: description".
std::string Describe(cudaError_t status, const char* what);
// Throws Error(kInternal, Describe(...)) unless status is cudaSuccess.
void Check(cudaError_t status, const char* what);
// Throws Error(kNoDevice) naming cudaGetDeviceCount's error when no device is usable; else
// selects device 0.
void EnsureDevice();

// Holds `stream` for `ns` ns: one thread spinning on %globaltimer (nothing else loaded).
void LaunchHold(int64_t ns, cudaStream_t stream);
// Keeps the device's SMs and HBM busy for `ns` ns, streaming over `bytes` of `buffer`.
void LaunchBusy(float* buffer, int64_t bytes, int64_t ns, cudaStream_t stream);
// Writes bytes [begin_byte, end_byte) of `pattern` at `data` (device memory).
void LaunchFill(std::byte* data, const executor::BytePattern& pattern, int64_t begin_byte,
                int64_t end_byte, cudaStream_t stream);
// The first byte of [begin_byte, end_byte) at `data` (device memory) that differs from
// `pattern`, or -1; `scratch` is 8 bytes of device memory. Synchronizes `stream`.
int64_t FirstMismatch(const std::byte* data, const executor::BytePattern& pattern,
                      int64_t begin_byte, int64_t end_byte, unsigned long long* scratch,
                      cudaStream_t stream);

}  // namespace hyperplan::cuda
