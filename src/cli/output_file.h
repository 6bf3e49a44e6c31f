// Output files of the CLI: written atomically, and never over an input.
//
// WriteFileAtomically writes a temporary file in the destination's directory (so the rename
// stays on one file system), flushes it to disk and renames it over the destination: a reader
// sees the old file or the whole new one, never half of it, and a failed write leaves the old
// file as it was. RefuseToOverwriteInputs runs before any work, so a typo such as
// `-o model.onnx` costs nothing and destroys nothing. Cost: one write and one fsync per file.
// Limits: the temporary file takes the destination's size again until the rename.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hyperplan::cli {

// Error(kOutputFile, "<path>: cannot write: <reason>").
void WriteFileAtomically(const std::string& path, std::string_view bytes);

// Error(kUsage) when `output` (given by `flag`) is the same file as one of `inputs` (role,
// path), compared by file identity when both exist, else by normalised absolute path.
void RefuseToOverwriteInputs(const std::string& flag, const std::string& output,
                             const std::vector<std::pair<std::string, std::string>>& inputs);

}  // namespace hyperplan::cli
