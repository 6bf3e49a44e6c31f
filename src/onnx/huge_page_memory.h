// Huge-page memory: where the importer keeps the parsed model and its own transient tables.
//
// Importing a 100k-node graph creates millions of small objects that live exactly as long as
// the import. From the heap, each fresh 4 KiB page costs a page fault on first touch, and on
// the machines measured those faults cost more than all the parsing and inference together.
// Blocks here are anonymous mappings aligned to 2 MiB and marked for transparent huge pages
// (one fault per 2 MiB where the kernel allows it, plain pages otherwise), and objects are
// bump-allocated in them and released all at once. Cost: one mmap per block; blocks double in
// size from the first. Limits: nothing is freed before the whole resource is.
#pragma once

#include <cstddef>
#include <memory_resource>

namespace hyperplan::onnx_import {

// A block of at least `bytes`, 2 MiB-aligned, advised for huge pages. Throws std::bad_alloc.
void* MapHugePageBlock(size_t bytes);
void UnmapHugePageBlock(void* block, size_t bytes);

// Bump allocation over huge-page blocks; deallocation is a no-op until destruction.
class ImportMemory {
 public:
  explicit ImportMemory(size_t first_block_bytes = size_t{8} << 20);
  ImportMemory(const ImportMemory&) = delete;
  ImportMemory& operator=(const ImportMemory&) = delete;

  std::pmr::memory_resource* resource() { return &monotonic_; }

 private:
  class Blocks final : public std::pmr::memory_resource {
    void* do_allocate(size_t bytes, size_t alignment) override;
    void do_deallocate(void* block, size_t bytes, size_t alignment) override;
    bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
      return this == &other;
    }
  };

  Blocks blocks_;
  std::pmr::monotonic_buffer_resource monotonic_;
};

}  // namespace hyperplan::onnx_import
