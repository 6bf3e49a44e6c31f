// Child-process measurement (see process_stats.h).
#include "process_stats.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>

namespace hyperplan::bench {

ProcessStats RunMeasured(const std::vector<std::string>& argv) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) throw std::runtime_error("pipe failed");
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);

  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    dup2(pipe_fds[1], STDOUT_FILENO);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    execv(args[0], args.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  ProcessStats stats;
  char buffer[65536];
  ssize_t count;
  while ((count = read(pipe_fds[0], buffer, sizeof buffer)) > 0) {
    stats.stdout_text.append(buffer, static_cast<size_t>(count));
  }
  close(pipe_fds[0]);
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  stats.wall_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count();
  stats.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  stats.peak_rss_bytes = static_cast<int64_t>(usage.ru_maxrss) * 1024;  // Linux: KiB
  if (stats.exit_code == 127) throw std::runtime_error("cannot run " + argv[0]);
  return stats;
}

}  // namespace hyperplan::bench
