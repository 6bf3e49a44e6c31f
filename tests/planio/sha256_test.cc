// SHA-256 against the published test vectors (FIPS 180-4 examples, NIST CSRC "SHA256.pdf"),
// and streaming updates split at every position against the one-shot digest.
#include "planio/sha256.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "hyperplan/error.h"

using hyperplan::planio::Sha256;
using hyperplan::planio::Sha256FileHex;
using hyperplan::planio::Sha256Hex;

TEST_CASE("sha256: the standard's test vectors") {
  CHECK(Sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(Sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // 448 bits: the padding's length field no longer fits in the first block.
  CHECK(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(Sha256Hex(std::string(1'000'000, 'a')) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("sha256: updates in pieces give the one-shot digest") {
  const std::string text =
      "The quick brown fox jumps over the lazy dog, again and again, "
      "until the message spans more than two 64-byte blocks of input.";
  const std::string whole = Sha256Hex(text);
  for (size_t cut = 0; cut <= text.size(); ++cut) {
    Sha256 hash;
    hash.Update(std::string_view(text).substr(0, cut));
    hash.Update(std::string_view(text).substr(cut));
    INFO("cut at " << cut);
    CHECK(hash.HexDigest() == whole);
  }
}

TEST_CASE("sha256: a file hashes as its bytes, and a missing file is an input error") {
  const auto path = std::filesystem::temp_directory_path() / "hyperplan-planio-sha.bin";
  std::ofstream(path, std::ios::binary) << "abc";
  CHECK(Sha256FileHex(path.string()) ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  std::filesystem::remove(path);
  try {
    Sha256FileHex("/nonexistent/model.onnx");
    FAIL("no error");
  } catch (const hyperplan::Error& error) {
    CHECK(error.kind() == hyperplan::ErrorKind::kInputFile);
    CHECK_THAT(error.what(), Catch::StartsWith("/nonexistent/model.onnx: cannot read"));
  }
}
