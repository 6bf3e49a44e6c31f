#include "decoder_context.h"

namespace hyperplan::gen {

std::string PastName(int64_t layer, const char* kind) {
  return "past_key_values." + std::to_string(layer) + "." + kind;
}

std::string PresentName(int64_t layer, const char* kind) {
  return "present." + std::to_string(layer) + "." + kind;
}

}  // namespace hyperplan::gen
