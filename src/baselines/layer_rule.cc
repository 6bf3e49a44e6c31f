// Layer of a weight by name (see layer_rule.h).
#include "baselines/layer_rule.h"

namespace hyperplan::baselines {

int LayerOfWeight(std::string_view name) {
  constexpr std::string_view kKey = "layers.";
  for (size_t at = name.find(kKey); at != std::string_view::npos; at = name.find(kKey, at + 1)) {
    if (at > 0 && name[at - 1] != '.' && name[at - 1] != '/') continue;
    size_t end = at + kKey.size();
    long layer = 0;
    while (end < name.size() && name[end] >= '0' && name[end] <= '9' && layer < 1'000'000'000) {
      layer = layer * 10 + (name[end] - '0');
      ++end;
    }
    if (end > at + kKey.size() && end < name.size() && name[end] == '.') {
      return static_cast<int>(layer);
    }
  }
  return -1;
}

}  // namespace hyperplan::baselines
