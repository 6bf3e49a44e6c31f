// The CUDA layer: the only code that calls the CUDA runtime, behind plain C++ declarations so
// the CLI and the tests build the same way with or without CUDA. With CUDA (CMake found nvcc;
// HYPERPLAN_CUDA) these are the .cu files beside this header; without it, no_cuda.cc, where
// each throws Error(kNoDevice) saying the build has no CUDA. With CUDA but no usable device at
// run time (no GPU, no driver), each throws Error(kNoDevice) naming cudaGetDeviceCount's error.
//
// - MakeCudaBackend: the reference executor's Backend on a GPU (executor/backend.h): the arena
//   one cudaMalloc, every tier buffer pinned host memory (cudaHostAlloc), each copy a
//   cudaMemcpyAsync on the CUDA stream of the executor's stream followed by a synchronize, and
//   compute steps a check kernel over each input's bytes then a fill kernel for each output,
//   on the same byte patterns as the host backend (byte_pattern_word.h). The executor's
//   threads order the steps; this checks bytes on real device memory over real copy engines.
// - TimeOnDevice: the timed pass. Issues a DeviceSchedule (executor/cuda_schedule.h) from one
//   host thread with no host synchronisation between steps: compute steps as a one-thread
//   kernel spinning on %globaltimer for the node's planned ns (it holds the compute stream in
//   the ordering sense; it does not load SMs or HBM as the real kernel would), copies as
//   cudaMemcpyAsync between the real buffers at the planned offsets, waits as
//   cudaStreamWaitEvent on the end event of the step waited for. Each step records a start and
//   an end event; times are read after the iteration, from its begin event (0.5 us
//   resolution). A gate kernel holds every stream while the host issues the iteration, so the
//   host's issue rate is not measured (the gate's hold is reported; if issuing outlasts it, the
//   first steps wait on the host). With `gemm`, MatMul nodes run a real bf16 cuBLASLt GEMM of
//   the node's shape (libcublasLt loaded at run time) on a workspace of their own instead of
//   the spin kernel. Byte contents are not checked in this pass (the untimed pass did).
// - RunCalibration: the measurements of calibrate/calibration.h on device 0.
// Cost: the plan's buffers (arena on the device, tier buffers pinned) plus 2 events per step.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "calibrate/calibration.h"
#include "executor/backend.h"
#include "executor/cuda_schedule.h"
#include "hyperplan/graph.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan::cuda {

// Whether this build has the CUDA layer (false: every function below throws kNoDevice).
bool Built();

// Device 0's name and memory, or throws Error(kNoDevice) with the reason there is none.
struct DeviceInfo {
  std::string name;
  int64_t memory_bytes = 0;
  int32_t multiprocessors = 0;
};
DeviceInfo OpenDevice();

std::unique_ptr<executor::Backend> MakeCudaBackend(executor::CheckMode mode);

struct TimedOptions {
  int32_t iterations = 1;
  bool gemm = false;  // MatMul nodes as cuBLASLt bf16 GEMMs of their shape
};

struct TimedRun {
  std::vector<std::vector<StepTiming>> iterations;  // per iteration, parallel to plan.steps
  int64_t gate_ns = 0;                              // how long the gate held each iteration
  int64_t max_issue_ns = 0;                         // the longest host issue of an iteration
  int64_t gemm_nodes = 0;                           // MatMul nodes run as GEMMs
  std::string gemm_note;                            // why none, when gemm was asked for
};

// `graph`: the graph one iteration sees (for MatMul shapes), `plan` its plan.
TimedRun TimeOnDevice(const executor::DeviceSchedule& schedule, const Graph& graph,
                      const Plan& plan, const TimedOptions& options);

struct CalibrateOptions {
  bool quick = false;  // fewer sizes and repeats (the GPU test)
};
calibrate::Calibration RunCalibration(const CalibrateOptions& options);

}  // namespace hyperplan::cuda
