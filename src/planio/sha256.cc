// SHA-256 through OpenSSL EVP (see sha256.h).
#include "planio/sha256.h"

#include <openssl/evp.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include "hyperplan/error.h"

namespace hyperplan::planio {

struct Sha256::Context {
  EVP_MD_CTX* evp = nullptr;
  ~Context() { EVP_MD_CTX_free(evp); }
};

namespace {

// OpenSSL fails only when it cannot allocate or finds no SHA-256 provider: a broken install,
// not anything the user's input caused.
void Require(bool ok, const char* what) {
  if (!ok) throw Error(ErrorKind::kInternal, std::string("OpenSSL SHA-256: ") + what + " failed");
}

}  // namespace

Sha256::Sha256() : context_(std::make_unique<Context>()) {
  context_->evp = EVP_MD_CTX_new();
  Require(context_->evp != nullptr, "EVP_MD_CTX_new");
  Require(EVP_DigestInit_ex(context_->evp, EVP_sha256(), nullptr) == 1, "EVP_DigestInit_ex");
}

Sha256::~Sha256() = default;

void Sha256::Update(std::string_view bytes) {
  if (bytes.empty()) return;
  Require(EVP_DigestUpdate(context_->evp, bytes.data(), bytes.size()) == 1, "EVP_DigestUpdate");
}

std::string Sha256::HexDigest() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int digest_bytes = 0;
  Require(EVP_DigestFinal_ex(context_->evp, digest, &digest_bytes) == 1, "EVP_DigestFinal_ex");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * digest_bytes);
  for (unsigned int i = 0; i < digest_bytes; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 0xf]);
  }
  return hex;
}

std::string Sha256Hex(std::string_view bytes) {
  Sha256 hash;
  hash.Update(bytes);
  return hash.HexDigest();
}

std::string Sha256FileHex(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::kInputFile, path + ": cannot read: " + std::strerror(errno));
  Sha256 hash;
  std::vector<char> chunk(size_t{1} << 20);
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    hash.Update(std::string_view(chunk.data(), static_cast<size_t>(in.gcount())));
  }
  if (in.bad()) throw Error(ErrorKind::kInputFile, path + ": cannot read: " + std::strerror(errno));
  return hash.HexDigest();
}

}  // namespace hyperplan::planio
