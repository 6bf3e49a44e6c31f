// HostBackend: the reference executor's backend in host memory. Every buffer (the device
// arena too) is an aligned host allocation, a copy is one memcpy, and a compute step checks
// its inputs' byte patterns and fills its outputs' (byte_pattern.h). Cost: each byte of a
// buffer is touched once to zero it, each copied byte once, each input byte once per read
// (all of it with CheckMode::kFull, 512 bytes of it with kSampled). Limits: allocations are
// plain operator new, not pinned; the caller bounds their total (run_command's --max-memory).
#pragma once

#include "executor/backend.h"

namespace hyperplan::executor {

class HostBackend : public Backend {
 public:
  explicit HostBackend(CheckMode mode) : mode_(mode) {}

  std::byte* Allocate(const BufferSpec& spec) override;
  void Release(std::byte* data, const BufferSpec& spec) override;
  void Copy(std::byte* dst, const std::byte* src, int64_t bytes, int32_t stream) override;
  std::optional<InputMismatch> Compute(const ComputeCall& call) override;
  void Place(const ValueSpan& span) override;
  std::optional<int64_t> Inspect(const ValueSpan& span) override;

 private:
  CheckMode mode_;
};

}  // namespace hyperplan::executor
