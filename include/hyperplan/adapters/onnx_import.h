// ONNX import: reads a .onnx file into the core Graph.
//
// Parses the protobuf from a file stream (never reading external-data weight bytes, so a model
// whose weights live in an absent 140 GB file imports in the time its graph takes to parse),
// binds symbolic dims, runs ONNX's own shape inference plus hyperplan's rules for contrib and
// post-1.12 operators, summarises control-flow bodies, checks that the graph is a DAG whose
// every used value is produced, and classifies values. Every failure is an Error naming the
// file and the node or value at fault; protobuf and ONNX exceptions never escape.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"

namespace hyperplan {

struct ImportOptions {
  std::map<std::string, int64_t, std::less<>> dims;  // --dim name=value
  // Bound where `dims` binds nothing, never warned unused: an exporter's config beside the
  // model (exporter_config.h).
  std::map<std::string, int64_t, std::less<>> default_dims;
  std::vector<ClassRule> class_rules;  // profile rules, then CLI rules
  // Size what the bound dims allow and list every symbol still deciding a size in
  // Graph::unbound_dims, instead of failing (inspect shows what is known without --dim).
  bool allow_unbound_dims = false;
  // A model hyperplan rewrote (--emit-onnx): import the model it was made from, dropping the
  // ai.hyperplan cache operators and reading through them (onnx/cache_ops.h). A model without
  // them imports as usual.
  bool read_through_cache_ops = false;
  // Fail (Error(kModel)) when a value whose size could change the plan stays of unknown size
  // (onnx/unknown_sizes.h has the rule), instead of sizing it as 0 bytes with a warning. plan
  // and fit set it unless --allow-unknown; inspect, simulate and verify leave it off.
  bool refuse_unknown_sizes = false;
};

// Throws Error(kModel) naming every unbound symbol that decides a size (UnboundDimsProblem),
// unless `allow_unbound_dims`.
Graph ImportOnnxModel(const std::string& path, const ImportOptions& options);

// A model file parsed once, for importing it at many dim bindings (hyperplan fit): each Import
// copies the parsed protobuf in memory instead of reading and parsing the file again. The copy
// is bound and inferred as ImportOnnxModel does; the parsed model is never changed. Measured on
// DeepSeek-V3 decode (124k nodes, 33 MB, 2026-11-24): 0.35-0.47 s an import against 0.49-0.53 s
// for a fresh one; binding, inference and building the graph are the rest, and are per value.
class ParsedOnnxModel {
 public:
  // Reads, parses and checks the structure of the file; throws as ImportOnnxModel does.
  explicit ParsedOnnxModel(const std::string& path, bool read_through_cache_ops = false);
  ~ParsedOnnxModel();
  ParsedOnnxModel(ParsedOnnxModel&&) noexcept;
  ParsedOnnxModel& operator=(ParsedOnnxModel&&) noexcept;

  // ImportOnnxModel(path, options) without the file (options.read_through_cache_ops is ignored:
  // the constructor's applies).
  Graph Import(const ImportOptions& options) const;

  // The model's metadata_props value of `key`, if it has one (e.g. a context window the
  // exporter recorded; cli/fit_window.h reads it).
  std::optional<std::string> MetadataProp(std::string_view key) const;

 private:
  struct Parsed;
  std::unique_ptr<Parsed> parsed_;
};

// "dimension 'batch' is not bound and decides the size of values 'x', 'y'; bind it with
// --dim batch=VALUE (also unbound: 'sequence')": the first symbol with its values, then the
// others, so one message lists every dim to bind. `unbound` must not be empty.
std::string UnboundDimsProblem(const std::vector<UnboundDim>& unbound);

}  // namespace hyperplan
