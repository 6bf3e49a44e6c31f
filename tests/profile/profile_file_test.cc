// LoadProfileFile: reading from disk, and the file path in every message.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "hyperplan/adapters/profile_yaml.h"
#include "hyperplan/error.h"

namespace hyperplan {
namespace {

using Catch::Matchers::StartsWith;

// A fresh directory under the system temp dir, removed with everything in it at scope exit.
class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "hyperplan-profile-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string Write(const std::string& name, const std::string& text) const {
    const std::string file = (path_ / name).string();
    std::ofstream(file, std::ios::binary) << text;
    return file;
  }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

// The Error that loading `path` must throw.
Error LoadError(const std::string& path) {
  try {
    LoadProfileFile(path);
  } catch (const Error& error) {
    return error;
  }
  FAIL("the profile was accepted");
  return Error(ErrorKind::kInternal, "");
}

TEST_CASE("A missing file is an input-file error naming the path", "[profile][file]") {
  const TempDir dir;
  const std::string missing = dir.path() + "/absent.yaml";
  const Error error = LoadError(missing);
  CHECK(error.kind() == ErrorKind::kInputFile);
  CHECK(std::string(error.what()) == missing + ": cannot read: No such file or directory");
}

TEST_CASE("A directory is an input-file error", "[profile][file]") {
  const TempDir dir;
  const Error error = LoadError(dir.path());
  CHECK(error.kind() == ErrorKind::kInputFile);
  CHECK(std::string(error.what()) == dir.path() + ": cannot read: Is a directory");
}

TEST_CASE("A profile file loads and records its path as the source", "[profile][file]") {
  const TempDir dir;
  const std::string file = dir.Write("small.yaml", R"yaml(name: small
tiers:
  - {name: hbm, capacity: 2GB, device: true}
  - {name: ddr, capacity: 16GB}
links:
  - {from: ddr, to: hbm, bandwidth: 20GB/s, reverse_bandwidth: 30GB/s, latency: 2us}
compute:
  peak: {bfloat16: 100TFLOPS}
  memory_bandwidth: 1TB/s
)yaml");
  const HardwareProfile profile = LoadProfileFile(file);
  CHECK(profile.source == file);
  CHECK(profile.name == "small");
  CHECK(profile.tiers[1].capacity_bytes == 16'000'000'000);  // 16 * 10^9
  const Link* up = profile.FindLink(0, 1);  // hbm -> ddr comes from reverse_bandwidth
  REQUIRE(up != nullptr);
  CHECK(up->bandwidth_bytes_per_s == 30'000'000'000);
  CHECK(up->latency_ns == 2'000);
  CHECK(profile.weight_home_tier == 1);
}

TEST_CASE("Problems in a file are reported against its path", "[profile][file]") {
  const TempDir dir;
  const std::string file = dir.Write("broken.yaml", "name: t\ntiers:\n  - name: hbm: x\n");
  const Error error = LoadError(file);
  CHECK(error.kind() == ErrorKind::kProfile);
  // Same position as in the in-memory syntax test: line 3, column 14.
  CHECK(std::string(error.what()) == file + ":3:14: YAML syntax error: illegal map value");

  const std::string typo = dir.Write("typo.yaml", R"yaml(name: t
tiers: [{name: hbm, capacity: 1GB, device: true}]
compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s}
plcement: {weight_home: ddr}
)yaml");
  CHECK_THAT(std::string(LoadError(typo).what()),
             StartsWith(typo + ":4:1: unknown key 'plcement'; did you mean 'placement'?"));
}

}  // namespace
}  // namespace hyperplan
