// libFuzzer's entry point for one fuzz target: every input goes to the target's FuzzOne.
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return FuzzOne(data, size);
}
