// The CUDA layer in a build without CUDA (see device.h): every entry point says so.
#include <fmt/format.h>

#include "cuda/device.h"
#include "hyperplan/error.h"

namespace hyperplan::cuda {
namespace {

[[noreturn]] void NotBuilt(const char* what) {
  throw Error(ErrorKind::kNoDevice,
              fmt::format("{} needs CUDA, and this hyperplan was built without it (configure "
                          "where CMake finds nvcc, with -DHYPERPLAN_CUDA=ON: docs/gpu.md)",
                          what));
}

}  // namespace

bool Built() { return false; }

DeviceInfo OpenDevice() { NotBuilt("the GPU"); }

std::unique_ptr<executor::Backend> MakeCudaBackend(executor::CheckMode /*mode*/) {
  NotBuilt("--backend cuda");
}

TimedRun TimeOnDevice(const executor::DeviceSchedule& /*schedule*/, const Graph& /*graph*/,
                      const Plan& /*plan*/, const TimedOptions& /*options*/) {
  NotBuilt("--backend cuda");
}

calibrate::Calibration RunCalibration(const CalibrateOptions& /*options*/) {
  NotBuilt("calibrate");
}

}  // namespace hyperplan::cuda
