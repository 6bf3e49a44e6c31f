// Stage progress on a terminal (see progress.h).
#include "progress.h"

#include <unistd.h>

namespace hyperplan::cli {
namespace {

constexpr const char* kEraseLine = "\r\033[K";

}  // namespace

bool Progress::WantedOnStderr(bool quiet) { return !quiet && isatty(fileno(stderr)) == 1; }

Progress::Progress(std::FILE* out, bool enabled, int stage_count, Timing timing)
    : out_(out),
      enabled_(enabled && out != nullptr),
      stage_count_(stage_count),
      timing_(timing),
      start_(std::chrono::steady_clock::now()) {
  if (enabled_) thread_ = std::thread([this] { Run(); });
}

Progress::~Progress() { Finish(); }

void Progress::Stage(const std::string& name) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (finished_) return;
  stage_ = name;
  ++stage_index_;
  DrawLocked(std::chrono::steady_clock::now());
}

void Progress::Finish() {
  if (!enabled_) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (finished_) return;
    finished_ = true;
    if (drawn_) {
      std::fputs(kEraseLine, out_);
      std::fflush(out_);
    }
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Progress::Run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!finished_) {
    wake_.wait_for(lock, timing_.refresh);
    if (!finished_) DrawLocked(std::chrono::steady_clock::now());
  }
}

void Progress::DrawLocked(std::chrono::steady_clock::time_point now) {
  const auto elapsed = now - start_;
  if (stage_index_ == 0 || elapsed < timing_.delay) return;
  const auto tenths = std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count() / 100;
  std::fputs(kEraseLine, out_);
  if (stage_count_ > 0) {
    std::fprintf(out_, "hyperplan: [%d/%d] %s, %lld.%lld s", stage_index_, stage_count_,
                 stage_.c_str(), static_cast<long long>(tenths / 10),
                 static_cast<long long>(tenths % 10));
  } else {
    std::fprintf(out_, "hyperplan: %s, %lld.%lld s", stage_.c_str(),
                 static_cast<long long>(tenths / 10), static_cast<long long>(tenths % 10));
  }
  std::fflush(out_);
  drawn_ = true;
}

}  // namespace hyperplan::cli
