// Test support: a model hyperplan-gen writes, imported with the given dims. The file goes into
// this process's scratch directory (scratch_dir.h), so test cases that ctest runs in parallel
// processes never overwrite or remove each other's model (a fixed name under TMPDIR could be
// a tiny-deepseek-v3 model in one process and a tiny-gpt-oss one in the next).
#pragma once

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "hyperplan/adapters/onnx_import.h"
#include "hyperplan/graph.h"
#include "support/run_command.h"
#include "support/scratch_dir.h"

namespace hyperplan::testing {

// `hyperplan-gen GEN_ARGS -o FILE` (REQUIREs that it succeeds), imported with `dims`.
inline Graph GeneratedGraph(const std::vector<std::string>& gen_args,
                            std::map<std::string, int64_t, std::less<>> dims) {
  static ScratchDir scratch("generated");
  const std::string path = scratch.File("model.onnx");
  std::vector<std::string> command = {HYPERPLAN_GEN_PATH};
  command.insert(command.end(), gen_args.begin(), gen_args.end());
  command.insert(command.end(), {"-o", path});
  const CommandResult generated = RunCommand(command);
  INFO(generated.stdout_text << generated.stderr_text);
  REQUIRE(generated.exit_code == 0);
  ImportOptions import;
  import.dims = std::move(dims);
  Graph graph = ImportOnnxModel(path, import);
  std::filesystem::remove(path);
  return graph;
}

}  // namespace hyperplan::testing
