// What every fuzz entry shares: the rule that separates bad input from bugs, and fixed inputs.
//
// A fuzz entry feeds bytes to one parser a user reaches. hyperplan::Error of any kind but
// kInternal is the documented answer to bad input and ends the run normally; Error(kInternal)
// (a broken invariant), any other exception (protobuf, ONNX, std:: escaping an adapter) and,
// through the sanitizers, any crash or undefined behaviour are bugs, so they abort() with the
// message on stderr and libFuzzer (or the replay test) reports the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "hyperplan/adapters/onnx_import.h"
#include "hyperplan/graph.h"

namespace hyperplan::fuzz {

// Runs `body`; returns 0 when it returns or throws a non-internal hyperplan::Error, aborts
// otherwise (see above).
int RunGuarded(const std::function<void()>& body);

// The fuzz input as text (bytes as they are; parsers must cope with NULs and bad UTF-8).
inline std::string_view AsText(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A small real model (1-layer tiny Llama decode, ONNX Runtime contrib ops, external weights
// never read) that the plan and flag targets check their input against, and the dims it needs.
std::string FixedModelPath();
ImportOptions FixedModelOptions();
// FixedModelPath imported with FixedModelOptions, once per process.
const Graph& FixedModelGraph();

// Writes `bytes` to this process's scratch file (in the temp directory) and returns its path,
// for the adapters whose only entry is a file path.
std::string WriteScratchFile(std::string_view bytes, const std::string& extension);

}  // namespace hyperplan::fuzz

// The entry each fuzz target defines (one per executable).
int FuzzOne(const uint8_t* data, size_t size);
