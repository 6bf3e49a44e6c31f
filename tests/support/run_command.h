// Test support: run a built executable and capture its exit code, stdout and stderr.
// Output goes through temporary files so a chatty child can never block on a full pipe.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace hyperplan::testing {

struct CommandResult {
  int exit_code = -1;
  std::string stdout_text;
  std::string stderr_text;
};

inline std::string ReadWholeFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline CommandResult RunCommand(const std::vector<std::string>& argv) {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string stem = "hyperplan-test-" + std::to_string(getpid()) + "-" +
                           std::to_string(reinterpret_cast<uintptr_t>(&argv));
  const auto out_path = dir / (stem + ".out");
  const auto err_path = dir / (stem + ".err");
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    if (!freopen(out_path.c_str(), "w", stdout) || !freopen(err_path.c_str(), "w", stderr)) {
      _exit(126);
    }
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.stdout_text = ReadWholeFile(out_path);
  result.stderr_text = ReadWholeFile(err_path);
  std::filesystem::remove(out_path);
  std::filesystem::remove(err_path);
  return result;
}

// `hyperplan ARGS...`: the CLI built beside the tests (HYPERPLAN_CLI_PATH, tests/CMakeLists.txt).
inline CommandResult Hyperplan(std::vector<std::string> args) {
  args.insert(args.begin(), HYPERPLAN_CLI_PATH);
  return RunCommand(args);
}

// The number of lines in `text` (a last line without '\n' counts).
inline int LineCount(const std::string& text) {
  int lines = 0;
  for (char c : text) lines += c == '\n';
  return lines + (!text.empty() && text.back() != '\n');
}

}  // namespace hyperplan::testing
