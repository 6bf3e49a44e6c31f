// Error: the one exception type the planning core and its adapters throw.
//
// Every failure a user can cause maps to an ErrorKind, and every ErrorKind to a documented
// process exit code (README.md, "Exit codes"). Adapters catch third-party exceptions (protobuf,
// yaml-cpp, ONNX) at the edge and rethrow them as Error, so the CLI prints exactly one line
// and never a stack trace. Messages start with the file (and line, node or field) they blame.
#pragma once

#include <array>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace hyperplan {

enum class ErrorKind {
  kInternal = 1,    // a bug in hyperplan: an invariant broke
  kUsage = 2,       // bad command-line flags or option values
  kInputFile = 3,   // an input file is missing or unreadable
  kModel = 4,       // the ONNX model is malformed, or cannot be sized with the bound dims
  kProfile = 5,     // the hardware profile is malformed or inconsistent
  kInfeasible = 6,  // no plan fits the requested budget
  kGateFailed = 7,  // a plan exists but misses the requested overhead target
  kPlanFile = 8,    // a plan file is malformed, foreign, or does not match the model
  kOutputFile = 9,  // an output file could not be written
  kViolation = 10,  // the reference executor (run) caught the plan breaking a runtime rule
  kNoDevice = 11,   // run --backend cuda, calibrate: no CUDA in the build, or no usable GPU
};

// The process exit code for an error kind; equal to the enum's value, named for readability.
constexpr int ExitCode(ErrorKind kind) { return static_cast<int>(kind); }

// The kind as a word for machine-readable outputs (RunSummary.error_kind): "usage",
// "input_file", "model", ...; one per kind, indexed by its exit code (as graph.cc names
// ValueClass); a value outside the enum reads "internal".
inline constexpr std::array<std::string_view, 11> kErrorKindNames = {
    "internal",    "usage",     "input_file",  "model",     "profile",  "infeasible",
    "gate_failed", "plan_file", "output_file", "violation", "no_device"};
constexpr std::string_view ErrorKindName(ErrorKind kind) {
  const int code = ExitCode(kind);
  return code >= 1 && code <= static_cast<int>(kErrorKindNames.size()) ? kErrorKindNames[code - 1]
                                                                       : kErrorKindNames[0];
}

// Its name, so a failing check reads "usage == plan_file".
inline std::ostream& operator<<(std::ostream& out, ErrorKind kind) {
  return out << ErrorKindName(kind);
}

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

}  // namespace hyperplan
