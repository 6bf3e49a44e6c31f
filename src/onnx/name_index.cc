// Open-addressing name index (see name_index.h).
#include "onnx/name_index.h"

#include <cstring>
#include <functional>

namespace hyperplan::onnx_import {
namespace {

constexpr size_t kSmallestCapacity = 16;

size_t PowerOfTwoAtLeast(size_t n) {
  size_t capacity = kSmallestCapacity;
  while (capacity < n) capacity *= 2;
  return capacity;
}

}  // namespace

NameIndex::NameIndex(std::pmr::memory_resource* memory) : entries_(memory) {
  entries_.resize(kSmallestCapacity);
}

void NameIndex::Reserve(size_t count) {
  const size_t capacity = PowerOfTwoAtLeast(2 * count);
  if (capacity > entries_.size()) Grow(capacity);
}

size_t NameIndex::Probe(std::string_view name, uint64_t hash) const {
  const size_t mask = entries_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const Entry& entry = entries_[i];
    if (entry.id == kAbsent) return i;
    if (entry.hash == hash && entry.size == name.size() &&
        std::memcmp(entry.data, name.data(), name.size()) == 0) {
      return i;
    }
  }
}

int32_t NameIndex::Find(std::string_view name) const {
  return entries_[Probe(name, std::hash<std::string_view>{}(name))].id;
}

int32_t NameIndex::Insert(std::string_view name, int32_t id) {
  const uint64_t hash = std::hash<std::string_view>{}(name);
  size_t slot = Probe(name, hash);
  if (entries_[slot].id != kAbsent) return entries_[slot].id;
  if (2 * (count_ + 1) > entries_.size()) {
    Grow(entries_.size() * 2);
    slot = Probe(name, hash);
  }
  entries_[slot] = {hash, name.data(), static_cast<uint32_t>(name.size()), id};
  ++count_;
  return id;
}

void NameIndex::Grow(size_t capacity) {
  std::pmr::vector<Entry> old(capacity, entries_.get_allocator());
  old.swap(entries_);
  const size_t mask = entries_.size() - 1;
  for (const Entry& entry : old) {
    if (entry.id == kAbsent) continue;
    size_t i = entry.hash & mask;
    while (entries_[i].id != kAbsent) i = (i + 1) & mask;
    entries_[i] = entry;
  }
}

}  // namespace hyperplan::onnx_import
