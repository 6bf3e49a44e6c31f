// ImportContext: the state every ONNX import stage shares, and the wording of its messages.
//
// Holds the model file's name (every Error starts with it), the opset version per domain, the
// model-local functions, the warnings found so far, and the arena that inferred types live in.
// Errors are one line: "<file>: <where>node 'NAME' (OpType): <what>", where <where> names the
// enclosing control-flow bodies, outermost first. Cost: the strings it keeps.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "hyperplan/error.h"

namespace google::protobuf {
class Arena;
}

namespace hyperplan::onnx_import {

// The domain ONNX's own operators live in, as nodes and opset imports may spell it.
inline bool IsDefaultDomain(std::string_view domain) {
  return domain.empty() || domain == "ai.onnx";
}

struct ImportContext {
  std::string file;  // the path as the user gave it
  int64_t ir_version = 0;
  // Domain ("" for ai.onnx) -> imported opset version.
  std::unordered_map<std::string, int> opset_versions;
  // "domain:name" -> function, as ONNX's function inference expects them keyed.
  std::unordered_map<std::string, const onnx::FunctionProto*> local_functions;
  google::protobuf::Arena* arena = nullptr;  // outlives every TypeProto made during import
  std::vector<std::string> warnings;
  std::vector<std::string> notes;  // decisions worth a line at -v (Graph::notes)
  // Values whose declared type is complete only because a --dim bound a symbol no graph input
  // carries: their producers are inferred anyway (dim_binding.h).
  std::unordered_set<std::string> unverified_declarations;

  // The opset version a node of `domain` runs under; the newest known when not imported.
  int OpsetVersion(std::string_view domain) const;

  [[noreturn]] void Fail(ErrorKind kind, std::string_view message) const {
    throw Error(kind, file + ": " + std::string(message));
  }
  void Warn(std::string message) { warnings.push_back(std::move(message)); }
  void Note(std::string message) { notes.push_back(std::move(message)); }
};

// "node 'NAME' (OpType)", with the domain for operators outside ai.onnx.
std::string NodeLabel(std::string_view unique_name, const onnx::NodeProto& node);

}  // namespace hyperplan::onnx_import
