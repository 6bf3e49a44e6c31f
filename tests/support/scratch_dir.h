// Test support: one scratch directory per test process, TMPDIR/hyperplan-<area>-<pid>, made when
// first used and removed with everything in it when the process ends, so test executables that
// run in parallel never share a file.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace hyperplan::testing {

class ScratchDir {
 public:
  explicit ScratchDir(const std::string& area)
      : path_(std::filesystem::temp_directory_path() /
              ("hyperplan-" + area + "-" + std::to_string(getpid()))) {
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  // The path of `name` inside the directory.
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace hyperplan::testing
