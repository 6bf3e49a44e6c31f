// Generated-model cache (see model_cache.h).
#include "model_cache.h"

#include <filesystem>
#include <stdexcept>

#include "process_stats.h"

namespace hyperplan::bench {

std::string EnsureModel(const Workload& workload, const std::string& models_dir) {
  const std::string path = models_dir + "/" + ModelFileName(workload);
  if (!std::filesystem::exists(path)) {
    std::filesystem::create_directories(models_dir);
    const ProcessStats stats = RunMeasured(GeneratorArgs(HYPERPLAN_GEN_PATH, workload, path));
    if (stats.exit_code != 0) throw std::runtime_error("generating " + path + " failed");
  }
  return path;
}

}  // namespace hyperplan::bench
