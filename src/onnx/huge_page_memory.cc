// Huge-page-backed blocks and the bump allocator over them (see huge_page_memory.h).
#include "onnx/huge_page_memory.h"

#include <sys/mman.h>

#include <cstdint>
#include <new>

namespace hyperplan::onnx_import {
namespace {

constexpr size_t kPageBytes = 4096;
constexpr size_t kHugePageBytes = size_t{2} << 20;

size_t RoundUp(size_t bytes, size_t granule) { return (bytes + granule - 1) / granule * granule; }

}  // namespace

// The kernel backs only 2 MiB-aligned extents with huge pages, so each block is mapped one huge
// page larger than asked and trimmed to start on a boundary.
void* MapHugePageBlock(size_t bytes) {
  const size_t block_bytes = RoundUp(bytes, kPageBytes);
  const size_t mapped_bytes = block_bytes + kHugePageBytes;
  void* mapped =
      mmap(nullptr, mapped_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<uintptr_t>(mapped);
  const uintptr_t aligned = RoundUp(start, kHugePageBytes);
  if (aligned > start) munmap(mapped, aligned - start);
  const uintptr_t block_end = aligned + block_bytes;
  const uintptr_t mapped_end = start + mapped_bytes;
  if (mapped_end > block_end) munmap(reinterpret_cast<void*>(block_end), mapped_end - block_end);
  // Advice only: without transparent huge pages the block still works with small pages.
  madvise(reinterpret_cast<void*>(aligned), block_bytes, MADV_HUGEPAGE);
  return reinterpret_cast<void*>(aligned);
}

void UnmapHugePageBlock(void* block, size_t bytes) { munmap(block, RoundUp(bytes, kPageBytes)); }

void* ImportMemory::Blocks::do_allocate(size_t bytes, size_t /*alignment: 2 MiB suffices*/) {
  return MapHugePageBlock(bytes);
}

void ImportMemory::Blocks::do_deallocate(void* block, size_t bytes, size_t /*alignment*/) {
  UnmapHugePageBlock(block, bytes);
}

ImportMemory::ImportMemory(size_t first_block_bytes) : monotonic_(first_block_bytes, &blocks_) {}

}  // namespace hyperplan::onnx_import
