// ReadTextFile: a whole input file (a profile, an ONNX Runtime trace) as one string.
//
// Reads in 16 KiB chunks through stdio, so a directory or a read error is caught where it
// happens (fopen succeeds on a directory on Linux; the read fails with EISDIR). Throws
// Error(kInputFile) "<path>: cannot read: <strerror>". Cost: O(file size), one copy.
#pragma once

#include <string>

namespace hyperplan {

std::string ReadTextFile(const std::string& path);

}  // namespace hyperplan
