// Backend: the hooks through which the reference executor touches memory, so the stream loop
// (executor.h) stays the same whether the bytes live in host memory (host_backend.h) or on a
// GPU. A CUDA backend would implement Allocate with cudaMalloc (the device arena) and
// cudaHostAlloc (pinned tier buffers), Copy with cudaMemcpyAsync on the stream's cudaStream_t
// followed by a synchronize (or an event the waits record), and Compute with the node's kernel
// (or, to check a plan, a fill/compare kernel over the same patterns).
//
// Every call may come from any stream thread; the executor never issues two calls that touch
// the same bytes unless the plan's waits order them (its ledger refuses the second first).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "executor/byte_pattern.h"
#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"

namespace hyperplan::executor {

// One buffer the plan lays out: the device arena or one tier's buffer.
struct BufferSpec {
  TierId tier = kNoTier;
  bool device = false;
  int64_t size_bytes = 0;
  int64_t alignment_bytes = 1;
};

// A range of a value inside a buffer, with the pattern its bytes carry (or must carry).
struct ValueSpan {
  std::byte* data = nullptr;  // points at byte `begin_byte` of the value
  BytePattern pattern;
  int64_t begin_byte = 0;  // within the value
  int64_t end_byte = 0;
};

// What one compute step reads and writes.
struct ComputeCall {
  NodeId node = kNoNode;
  std::vector<ValueSpan> inputs;   // must hold their patterns
  std::vector<ValueSpan> outputs;  // get their patterns
};

// An input whose bytes are not its producer's: which input, and the first byte that differs.
struct InputMismatch {
  size_t input = 0;  // index into ComputeCall::inputs
  int64_t byte = 0;  // within the value
};

class Backend {
 public:
  virtual ~Backend() = default;
  // Memory for one buffer, aligned to at least spec.alignment_bytes; released by Release.
  virtual std::byte* Allocate(const BufferSpec& spec) = 0;
  virtual void Release(std::byte* data, const BufferSpec& spec) = 0;
  // Copies `bytes` on copy stream `stream` and returns when they are all at `dst`.
  virtual void Copy(std::byte* dst, const std::byte* src, int64_t bytes, int32_t stream) = 0;
  // Runs a node: checks its inputs, then writes its outputs. Returns the first input whose
  // bytes differ (the outputs are then left unwritten). A host compute step's spans all lie in
  // the host compute tier's buffer (host memory, pinned under CUDA), never in the arena.
  virtual std::optional<InputMismatch> Compute(const ComputeCall& call) = 0;
  // The caller's part, between iterations: place a value (weights, inputs) / read an output.
  virtual void Place(const ValueSpan& span) = 0;
  virtual std::optional<int64_t> Inspect(const ValueSpan& span) = 0;
  // A failure of the backend itself (a CUDA error), which makes the run's report meaningless:
  // the first one, in words; nullopt when none. Calls go on after one (a stream thread cannot
  // throw), and the caller reports it instead of the report.
  virtual std::optional<std::string> Failure() const { return std::nullopt; }
};

}  // namespace hyperplan::executor
