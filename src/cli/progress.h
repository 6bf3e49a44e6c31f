// Progress: a one-line indication on a terminal of which pipeline stage a long run is in.
//
// The command calls Stage() between its stages ("importing model", "planning", ...). Nothing
// is drawn for the first second (`delay`), so quick runs print nothing; after that the line
// "hyperplan: [2/5] planning, 3.4 s" is redrawn in place (carriage return, erase line) at
// each stage and every `refresh` by a small background thread, so the elapsed time moves
// while one long stage runs. Finish() (or the destructor) erases the line, leaving the
// terminal as it was. Disabled, it does nothing and starts no thread: the CLI enables it only
// when stderr is a terminal and --quiet is absent, so pipes and logs never see it.
// Cost: one thread waking every `refresh` while enabled; nothing otherwise.
// Limits: a warning logged while the line is drawn lands after it on the same line.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

namespace hyperplan::cli {

class Progress {
 public:
  struct Timing {
    std::chrono::milliseconds delay{1000};
    std::chrono::milliseconds refresh{200};
  };

  // True when progress belongs on stderr: it is a terminal and the user did not ask --quiet.
  static bool WantedOnStderr(bool quiet);

  // `stage_count` is shown as "[k/stage_count]" (0: no count).
  Progress(std::FILE* out, bool enabled, int stage_count, Timing timing);
  Progress(std::FILE* out, bool enabled, int stage_count)
      : Progress(out, enabled, stage_count, Timing{}) {}
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void Stage(const std::string& name);
  void Finish();

 private:
  void Run();                                                  // the refresh thread
  void DrawLocked(std::chrono::steady_clock::time_point now);  // mutex held

  std::FILE* out_;
  const bool enabled_;
  const int stage_count_;
  const Timing timing_;
  const std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::string stage_;
  int stage_index_ = 0;
  bool drawn_ = false;
  bool finished_ = false;
  std::thread thread_;
};

}  // namespace hyperplan::cli
