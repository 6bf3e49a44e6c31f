// The CLI's stage progress line (src/cli/progress.h), written into a memory stream.
#include "cli/progress.h"

#include <stdio.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

using hyperplan::cli::Progress;

namespace {

// A FILE* that collects what is written to it.
class MemoryFile {
 public:
  MemoryFile() : file_(open_memstream(&buffer_, &size_)) { REQUIRE(file_ != nullptr); }
  ~MemoryFile() {
    std::fclose(file_);
    std::free(buffer_);
  }
  std::FILE* get() { return file_; }
  std::string text() {
    std::fflush(file_);
    return std::string(buffer_, size_);
  }

 private:
  char* buffer_ = nullptr;
  size_t size_ = 0;
  std::FILE* file_;
};

}  // namespace

TEST_CASE("disabled progress writes nothing") {
  MemoryFile out;
  {
    Progress progress(out.get(), false, 3,
                      {std::chrono::milliseconds(0), std::chrono::milliseconds(1)});
    progress.Stage("importing model");
    progress.Stage("planning");
    progress.Finish();
  }
  CHECK(out.text().empty());
}

TEST_CASE("a run shorter than the delay writes nothing") {
  MemoryFile out;
  {
    Progress progress(out.get(), true, 2,
                      {std::chrono::milliseconds(60'000), std::chrono::milliseconds(5)});
    progress.Stage("importing model");
    progress.Stage("planning");
  }  // the destructor finishes
  CHECK(out.text().empty());
}

TEST_CASE("past the delay each stage redraws one line, and finishing erases it") {
  MemoryFile out;
  Progress progress(out.get(), true, 3,
                    {std::chrono::milliseconds(0), std::chrono::milliseconds(60'000)});
  progress.Stage("importing model");
  progress.Stage("planning");
  progress.Finish();
  progress.Finish();           // idempotent
  progress.Stage("too late");  // ignored once finished
  const std::string text = out.text();
  CHECK_THAT(text, Catch::Contains("\r\033[Khyperplan: [1/3] importing model, 0."));
  CHECK_THAT(text, Catch::Contains("\r\033[Khyperplan: [2/3] planning, 0."));
  CHECK_THAT(text, Catch::EndsWith("\r\033[K"));
  CHECK(text.find("too late") == std::string::npos);
  CHECK(text.find('\n') == std::string::npos);  // one line, redrawn in place
}

TEST_CASE("progress goes to stderr only when asked and stderr is a terminal") {
  CHECK_FALSE(Progress::WantedOnStderr(true));
  // ctest runs tests with stderr on a pipe or file, never a terminal.
  if (!isatty(fileno(stderr))) CHECK_FALSE(Progress::WantedOnStderr(false));
}
