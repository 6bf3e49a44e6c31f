// The exit-code table for --help (see exit_codes.h).
#include "exit_codes.h"

#include <fmt/format.h>

#include "onnx/model_structure.h"

namespace hyperplan::cli {

std::string ExitCodeTable() {
  return "Exit codes:\n"
         "  0  success\n"
         "  1  internal error (a bug: please report it)\n"
         "  2  bad command-line usage (an unknown flag, a bad value, an output that would "
         "overwrite an input or another output)\n"
         "  3  an input file is missing or unreadable\n"
         "  4  the model is malformed or cannot be sized (unbound dims, unknown element type, "
         "cycle, recursive function, values of unknown size in plan and fit without "
         "--allow-unknown, ...)\n"
         "  5  the hardware profile is invalid (every problem listed, each with "
         "file:line:column)\n"
         "  6  no plan fits the budget or the device (plan; simulate: a tier over its "
         "capacity; fit: not even at the smallest value)\n"
         "  7  the plan (or simulate's replay) is slower than the overhead target the user set "
         "with --max-overhead; without it, never (fit: already at the smallest value)\n"
         "  8  a plan file is malformed, foreign, or does not match the model\n"
         "  9  an output file could not be written\n"
         "  10 run: the executor caught the plan breaking a rule of schemas/README.md (a "
         "missing wait, overlapping blocks, a Detach before its Store, bytes not as written)\n"
         "  11 run --backend cuda, calibrate: no GPU to use (this build has no CUDA, or the "
         "CUDA runtime finds no device; the CUDA error is named)\n";
}

std::string ModelLimits() {
  return fmt::format(
      "Limits (exit 4 beyond them): control-flow bodies (If, Loop, Scan) nest at most {} deep; "
      "model-local function calls nest at most {} deep; a function that calls itself, directly "
      "or through others, is refused. Class patterns (--class, profile classes) are RE2 syntax "
      "(github.com/google/re2/wiki/Syntax), matched against the whole name.\n",
      onnx_import::kMaxBodyNesting, onnx_import::kMaxFunctionCallDepth);
}

}  // namespace hyperplan::cli
