// SHA-256 (FIPS 180-4) of byte strings and files, as lower-case hex.
//
// Plans record the model's digest (so a plan is never applied to another model) and rewritten
// models record the plan's. Written from the standard so the adapters need no crypto library.
// Cost: one pass, 64 rounds per 64-byte block (about 200 MB/s unoptimised); files are read in
// 1 MiB chunks, so memory stays constant. Limits: not constant-time; not for secrets.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace hyperplan::planio {

class Sha256 {
 public:
  Sha256();
  void Update(std::string_view bytes);
  // The digest as 64 lower-case hex digits; the object must not be updated afterwards.
  std::string HexDigest();

 private:
  void Compress(const uint8_t* block);

  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_{};
  size_t buffered_bytes_ = 0;
  uint64_t total_bytes_ = 0;
};

std::string Sha256Hex(std::string_view bytes);

// Throws Error(kInputFile, "<path>: cannot read: <reason>").
std::string Sha256FileHex(const std::string& path);

}  // namespace hyperplan::planio
