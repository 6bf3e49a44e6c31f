// Shared fuzz-entry support (see fuzz_support.h).
#include "fuzz_support.h"

#include <google/protobuf/stubs/logging.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>

#include "hyperplan/error.h"

namespace hyperplan::fuzz {
namespace {

[[noreturn]] void Bug(const std::string& what) {
  std::fprintf(stderr, "fuzz: BUG: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

// protobuf logs every string field with bad UTF-8 it parses; mutated inputs have thousands.
void IgnoreProtobufLog(google::protobuf::LogLevel, const char*, int, const std::string&) {}

}  // namespace

int RunGuarded(const std::function<void()>& body) {
  static const bool quiet = (google::protobuf::SetLogHandler(IgnoreProtobufLog), true);
  (void)quiet;
  try {
    body();
  } catch (const Error& error) {
    if (error.kind() == ErrorKind::kInternal) Bug(std::string("internal error: ") + error.what());
    // HYPERPLAN_FUZZ_VERBOSE=1: show which check refused the input (how deep a seed gets).
    if (std::getenv("HYPERPLAN_FUZZ_VERBOSE")) std::fprintf(stderr, "fuzz: %s\n", error.what());
  } catch (const std::exception& exception) {
    Bug(std::string("exception escaped the adapters: ") + exception.what());
  } catch (...) {
    Bug("a non-std exception escaped the adapters");
  }
  return 0;
}

std::string FixedModelPath() {
  return std::string(HYPERPLAN_SOURCE_DIR) + "/tests/fuzz/data/decode-contrib.onnx";
}

ImportOptions FixedModelOptions() {
  ImportOptions options;
  // The symbols hyperplan-gen's decode models declare.
  options.dims = {{"batch", 1}, {"sequence", 1}, {"past_sequence", 3}};
  return options;
}

const Graph& FixedModelGraph() {
  static const Graph graph = ImportOnnxModel(FixedModelPath(), FixedModelOptions());
  return graph;
}

std::string WriteScratchFile(std::string_view bytes, const std::string& extension) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("hyperplan-fuzz-" + std::to_string(getpid()) + extension))
                               .string();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) Bug("cannot write the scratch file " + path);
  return path;
}

}  // namespace hyperplan::fuzz
