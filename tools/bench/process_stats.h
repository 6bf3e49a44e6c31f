// Runs a command as a child process and measures it: wall time and the child's peak resident
// set size (from wait4's rusage), with stdout captured. Cost: one fork/exec per call.
// Limits: POSIX only; the RSS is the child's own (ru_maxrss), not its descendants'.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hyperplan::bench {

struct ProcessStats {
  int exit_code = -1;
  int64_t wall_ns = 0;
  int64_t peak_rss_bytes = 0;
  std::string stdout_text;
};

// Runs argv[0] with arguments; stderr passes through. Throws std::runtime_error if the
// process cannot be started.
ProcessStats RunMeasured(const std::vector<std::string>& argv);

}  // namespace hyperplan::bench
