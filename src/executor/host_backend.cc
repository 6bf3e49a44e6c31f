// HostBackend (see host_backend.h).
#include "executor/host_backend.h"

#include <algorithm>
#include <cstring>
#include <new>

namespace hyperplan::executor {
namespace {

std::align_val_t Alignment(const BufferSpec& spec) {
  return std::align_val_t{static_cast<size_t>(std::max<int64_t>(spec.alignment_bytes, 64))};
}

}  // namespace

std::byte* HostBackend::Allocate(const BufferSpec& spec) {
  const size_t size = static_cast<size_t>(std::max<int64_t>(spec.size_bytes, 1));
  auto* data = static_cast<std::byte*>(::operator new(size, Alignment(spec)));
  std::memset(data, 0, size);  // a read of never-written bytes then fails its pattern check
  return data;
}

void HostBackend::Release(std::byte* data, const BufferSpec& spec) {
  ::operator delete(data, Alignment(spec));
}

void HostBackend::Copy(std::byte* dst, const std::byte* src, int64_t bytes, int32_t /*stream*/) {
  std::memcpy(dst, src, static_cast<size_t>(bytes));
}

std::optional<InputMismatch> HostBackend::Compute(const ComputeCall& call) {
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    if (const std::optional<int64_t> byte = Inspect(call.inputs[i])) return InputMismatch{i, *byte};
  }
  for (const ValueSpan& output : call.outputs) Place(output);
  return std::nullopt;
}

void HostBackend::Place(const ValueSpan& span) {
  FillPattern(span.data, span.pattern, span.begin_byte, span.end_byte);
}

std::optional<int64_t> HostBackend::Inspect(const ValueSpan& span) {
  return FindMismatch(span.data, span.pattern, span.begin_byte, span.end_byte, mode_);
}

}  // namespace hyperplan::executor
