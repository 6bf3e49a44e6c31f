// OutputGuard: no output of a run may land on one of its inputs or on another of its outputs.
//
// Files are compared by identity, not by spelling: an existing file by its device and inode
// after following symbolic links (so `./m.onnx`, an absolute path, a symlink and a hard link to
// the same model all match), a file not yet there by its directory's device and inode plus its
// name (so `out/../p.json` and `p.json` match). Callers add every input (the model, each
// external-data file it references, the profile, a plan read) and every output, then Check()
// before writing anything; a typo such as `--emit-onnx model.onnx.data` then costs nothing and
// destroys nothing. Cost: one stat per path and a pairwise comparison (a handful of files).
// Limits: an input not there is compared by directory and name like an output (reading it
// fails later with its own error); case-insensitive file systems are compared by exact name.
#pragma once

#include <string>
#include <vector>

namespace hyperplan::files {

class OutputGuard {
 public:
  // `role` names the input in messages: "model", "hardware profile", ...
  void AddInput(std::string role, std::string path);
  // `flag` is how the user gave the output ("-o", "--trace"); `role` names it for messages
  // about another output landing on it ("plan output").
  void AddOutput(std::string flag, std::string role, std::string path);

  // Error(kUsage): "<flag> <path>: refusing to overwrite the <role> (<path>); write the output
  // elsewhere" for the first output that is an input or an earlier output.
  void Check() const;

 private:
  struct Input {
    std::string role;
    std::string path;
  };
  struct Output {
    std::string flag;
    std::string role;
    std::string path;
  };
  std::vector<Input> inputs_;
  std::vector<Output> outputs_;
};

}  // namespace hyperplan::files
