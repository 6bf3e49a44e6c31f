// Atomic output files: the one way every hyperplan program writes a file.
//
// WriteFileAtomically writes a temporary file in the destination's directory (so the rename
// stays on one file system), flushes it to disk and renames it over the destination: a reader
// sees the old file or the whole new one, never half of it, and a crash, a full disk or a
// failed write leaves the old file as it was. Callers check first (output_guard.h) that the
// destination is neither an input nor another output of the same run. A destination that is a
// symbolic link is replaced by the new file (the link's target is left alone).
// Cost: one write and one fsync per file. Limits: the temporary file takes the destination's
// size again until the rename.
#pragma once

#include <string>
#include <string_view>

namespace hyperplan::files {

// Error(kOutputFile, "<path>: cannot write: <reason>").
void WriteFileAtomically(const std::string& path, std::string_view bytes);

}  // namespace hyperplan::files
