// `hyperplan calibrate`: measures this machine's GPU (src/cuda/device.h, RunCalibration) and
// writes a hardware profile with the numbers (calibrate/calibration.h): the host link's
// bandwidth by transfer size and per-transfer latency both ways, one against several streams
// per direction, copies beside a running kernel, sustained HBM bandwidth and bf16 / fp8 GEMM
// throughput, on top of a base profile (--hw, default h100-sxm) for everything not measured.
// Prints the measurements; -o writes the profile (parsed back before it is written, so a file
// it writes always loads). Exit 11 without a GPU (no CUDA in the build, or no device: the
// CUDA error is named). Cost: a few seconds of device time (--quick: under one).
#pragma once

#include <CLI/CLI.hpp>

namespace hyperplan::cli {

void AddCalibrateCommand(CLI::App& app);

}  // namespace hyperplan::cli
