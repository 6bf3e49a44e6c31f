// Outputs never land on inputs or on each other (see output_guard.h).
#include "files/output_guard.h"

#include <sys/stat.h>

#include <filesystem>
#include <optional>

#include "hyperplan/error.h"

namespace hyperplan::files {
namespace {

namespace fs = std::filesystem;

// A file's identity: device and inode of the file itself (`name` empty), or, for a file not
// yet there, of its directory plus its name.
struct FileIdentity {
  dev_t device = 0;
  ino_t inode = 0;
  std::string name;
  bool operator==(const FileIdentity&) const = default;
};

std::optional<FileIdentity> StatIdentity(const std::string& path, std::string name) {
  struct stat status {};
  if (stat(path.c_str(), &status) != 0) return std::nullopt;
  return FileIdentity{status.st_dev, status.st_ino, std::move(name)};
}

// stat() follows symbolic links, so a link and its target share an identity. A path that does
// not exist (or is a dangling link) is identified by its directory and name; nullopt when the
// directory does not exist either (nothing can be written there, so nothing is overwritten).
std::optional<FileIdentity> Identify(const std::string& path) {
  if (auto existing = StatIdentity(path, "")) return existing;
  const fs::path spelled(path);
  const std::string name = spelled.filename().string();
  if (name.empty() || name == "." || name == "..") return std::nullopt;
  const fs::path directory = spelled.parent_path();
  return StatIdentity(directory.empty() ? "." : directory.string(), name);
}

[[noreturn]] void Refuse(const std::string& flag, const std::string& output,
                         const std::string& what) {
  throw Error(ErrorKind::kUsage, flag + " " + output + ": refusing to overwrite the " + what +
                                     "; write the output elsewhere");
}

}  // namespace

void OutputGuard::AddInput(std::string role, std::string path) {
  if (!path.empty()) inputs_.push_back({std::move(role), std::move(path)});
}

void OutputGuard::AddOutput(std::string flag, std::string role, std::string path) {
  if (!path.empty()) outputs_.push_back({std::move(flag), std::move(role), std::move(path)});
}

void OutputGuard::Check() const {
  std::vector<std::optional<FileIdentity>> inputs;
  for (const Input& input : inputs_) inputs.push_back(Identify(input.path));
  std::vector<std::optional<FileIdentity>> outputs;
  for (const Output& output : outputs_) outputs.push_back(Identify(output.path));
  for (size_t o = 0; o < outputs_.size(); ++o) {
    if (!outputs[o]) continue;
    for (size_t i = 0; i < inputs_.size(); ++i) {
      if (inputs[i] != outputs[o]) continue;
      Refuse(outputs_[o].flag, outputs_[o].path, inputs_[i].role + " (" + inputs_[i].path + ")");
    }
    for (size_t earlier = 0; earlier < o; ++earlier) {
      if (outputs[earlier] != outputs[o]) continue;
      Refuse(outputs_[o].flag, outputs_[o].path,
             outputs_[earlier].role + " (" + outputs_[earlier].flag + " " + outputs_[earlier].path +
                 ")");
    }
  }
}

}  // namespace hyperplan::files
