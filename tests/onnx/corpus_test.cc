// Real model files: the bundled models/ and ONNX's own backend test corpus (Debian's
// libonnx-testdata). Every file imports or fails with a hyperplan::Error: never another
// exception, a crash or a hang.
#include <re2/re2.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "hyperplan/error.h"
#include "model_builder.h"

namespace hyperplan::test {
namespace {

constexpr int kSkipExitCode = 77;  // ctest: Skipped

namespace fs = std::filesystem;

constexpr char kTestDataDirectory[] = "/usr/share/libonnx-testdata";
constexpr int kMaxBindingRounds = 16;

std::vector<std::string> OnnxFilesUnder(const fs::path& root) {
  std::vector<std::string> files;
  std::error_code error;
  if (!fs::is_directory(root, error)) return files;
  for (const auto& entry : fs::recursive_directory_iterator(root, error)) {
    if (entry.is_regular_file() && entry.path().extension() == ".onnx") {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

struct Outcome {
  bool imported = false;
  std::optional<Graph> graph;
  std::optional<Error> error;
  ImportOptions options;
};

// Imports `path`, binding each symbol an unbound-dimension error names to `value` and trying
// again, as a user following the message would.
Outcome ImportBindingSymbols(const std::string& path, int64_t value) {
  static const RE2 kUnbound("dimension '([^']*)' is not bound");
  Outcome outcome;
  for (int round = 0; round < kMaxBindingRounds; ++round) {
    try {
      outcome.graph = ImportOnnxModel(path, outcome.options);
      outcome.imported = true;
      return outcome;
    } catch (const Error& error) {
      std::string symbol;
      if (error.kind() == ErrorKind::kModel && RE2::PartialMatch(error.what(), kUnbound, &symbol)) {
        outcome.options.dims[symbol] = value;
        continue;
      }
      outcome.error = error;
      return outcome;
    }
  }
  return outcome;
}

// Every value is either sized or named in a warning: nothing counts silently.
void CheckUnknownSizesAreWarned(const Graph& graph) {
  int64_t unknown = 0;
  for (const Value& value : graph.values) {
    if (value.size_known) continue;
    CHECK(value.bytes == 0);
    ++unknown;
  }
  if (unknown > 0) CHECK_FALSE(graph.warnings.empty());
}

TEST_CASE("every model in models/ imports", "[onnx][corpus]") {
  const std::vector<std::string> files = OnnxFilesUnder(fs::path(HYPERPLAN_SOURCE_DIR) / "models");
  REQUIRE_FALSE(files.empty());  // the bundled models ship with the sources
  for (const std::string& path : files) {
    INFO(path);
    const Outcome outcome = ImportBindingSymbols(path, 8);
    if (outcome.error) FAIL_CHECK(outcome.error->what());
    REQUIRE(outcome.imported);
    const Graph& graph = *outcome.graph;
    CHECK_FALSE(graph.nodes.empty());
    // These are LLM exports with every shape derivable once the dims are bound.
    INFO(JoinedWarnings(graph));
    for (const Value& value : graph.values) CHECK(value.size_known);
    int64_t weight_bytes = 0;
    for (const Value& value : graph.values) {
      if (value.value_class == ValueClass::kWeight) weight_bytes += value.bytes;
    }
    CHECK(weight_bytes > 0);
    std::string bound;
    for (const auto& [name, value] : outcome.options.dims) bound += " " + name;
    INFO(path << ": " << graph.nodes.size() << " nodes, " << graph.values.size() << " values, bound"
              << bound);
    SUCCEED();
  }
}

TEST_CASE("ONNX's backend test models import or fail with a hyperplan::Error",
          "[onnx][corpus][sweep]") {
  const std::vector<std::string> files = OnnxFilesUnder(kTestDataDirectory);
  if (files.empty()) {
    // Not a pass: ctest shows this test Skipped (SKIP_RETURN_CODE, tests/CMakeLists.txt).
    // scripts/install-deps.sh installs the corpus, so CI never skips it.
    std::fprintf(stderr, "SKIPPED: %s holds no .onnx files (install libonnx-testdata)\n",
                 kTestDataDirectory);
    std::exit(kSkipExitCode);
  }
  int imported = 0;
  int needed_dims = 0;
  int with_unknown_sizes = 0;
  std::map<ErrorKind, int> errors_by_kind;
  std::vector<std::string> error_samples;
  for (const std::string& path : files) {
    INFO(path);
    Outcome outcome;
    try {
      outcome = ImportBindingSymbols(path, 2);
    } catch (const std::exception& unexpected) {
      FAIL_CHECK("not a hyperplan::Error: " << unexpected.what());
      continue;
    }
    if (outcome.imported) {
      ++imported;
      if (!outcome.options.dims.empty()) ++needed_dims;
      const Graph& graph = *outcome.graph;
      CheckUnknownSizesAreWarned(graph);
      for (const Value& value : graph.values) {
        if (!value.size_known) {
          ++with_unknown_sizes;
          break;
        }
      }
    } else {
      REQUIRE(outcome.error);
      // A message is one line that starts with the file.
      const std::string message = outcome.error->what();
      CHECK(message.rfind(path + ": ", 0) == 0);
      CHECK(message.find('\n') == std::string::npos);
      ++errors_by_kind[outcome.error->kind()];
      if (error_samples.size() < 10) error_samples.push_back(message);
    }
  }
  std::string kinds;
  for (const auto& [kind, count] : errors_by_kind) {
    kinds += " kind " + std::to_string(ExitCode(kind)) + ": " + std::to_string(count) + ";";
  }
  WARN(files.size() << " models: " << imported << " imported (" << needed_dims
                    << " after binding symbolic dims to 2, " << with_unknown_sizes
                    << " with some value of unknown size), "
                    << files.size() - static_cast<size_t>(imported)
                    << " failed with a hyperplan::Error;" << kinds);
  for (const std::string& sample : error_samples) WARN(sample);
  // Most of the corpus is small, well-formed graphs: nearly all of it must import.
  CHECK(imported * 10 >= static_cast<int>(files.size()) * 9);
}

}  // namespace
}  // namespace hyperplan::test
