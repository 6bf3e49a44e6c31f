// SHA-256 of byte strings and files, as lower-case hex, through OpenSSL's EVP interface.
//
// Plans record the model's digest (so a plan is never applied to another model) and rewritten
// models record the plan's. OpenSSL picks the fastest implementation the CPU offers (SHA-NI,
// AVX2), about 1.5-2 GB/s, so hashing a multi-GB model costs little next to reading it. Files
// are read in 1 MiB chunks, so memory stays constant. Limits: none beyond OpenSSL's.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace hyperplan::planio {

// A streaming digest: Update any number of times, then HexDigest once.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void Update(std::string_view bytes);
  // The digest as 64 lower-case hex digits; the object must not be updated afterwards.
  std::string HexDigest();

 private:
  struct Context;
  std::unique_ptr<Context> context_;
};

std::string Sha256Hex(std::string_view bytes);

// Throws Error(kInputFile, "<path>: cannot read: <reason>").
std::string Sha256FileHex(const std::string& path);

}  // namespace hyperplan::planio
