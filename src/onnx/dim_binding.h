// Dim binding: substitutes --dim values for the symbolic dims a model declares.
// Defaults (an exporter's config beside the model: exporter_config.h) bind what no --dim does;
// they are never reported unused, since a config names dims of every graph its exporter writes.
//
// Walks every graph input, output and value_info, control-flow bodies included, and replaces
// each dim_param that names a bound symbol, or is an expression over bound symbols
// ("past_sequence + 1"), by its value. It runs before shape inference so that inference sees
// concrete shapes, and it remembers which declared symbols stayed unbound so that one deciding
// a value's size can later be reported by name. Negative dims, declared or bound, are errors.
// Symbols the model's graph inputs carry are its free dimensions; a symbol only outputs or
// value_info name is an exporter's name for a size the model computes, so a declaration it
// completes is still checked by inference (ImportContext::unverified_declarations).
// Cost: linear in the declared dims (each distinct text is evaluated once).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "onnx/import_context.h"

namespace hyperplan::onnx_import {

using DimValues = std::map<std::string, int64_t, std::less<>>;

class DimBinding {
 public:
  // Checks the values (Error(kUsage) for a negative one or an empty name). `defaults` bind a
  // symbol no `dims` entry names. Both must outlive the binding.
  explicit DimBinding(const DimValues& dims, const DimValues& defaults = kNoDefaults);

  // Substitutes bound dims throughout `graph` and its bodies, in place. A declaration that a
  // bound symbol no graph input carries made complete is listed in
  // ImportContext::unverified_declarations, so inference still checks it: such symbols are
  // names exporters give sizes they could not work out, and the model decides them.
  void Bind(onnx::GraphProto& graph, ImportContext& context);

  // The bound dims the model actually names; what its sizes assume.
  const DimValues& used() const { return used_; }
  // Bound dims the model never names, for a warning (a misspelt --dim is a common mistake).
  std::vector<std::string> Unused() const;
  // Every symbol the model's declared dims name, bound or not, sorted: what a --dim may bind.
  std::vector<std::string> DeclaredSymbols() const;

  // The unbound declared symbols that a dim_param found after inference depends on. Empty for
  // text the model never declared, such as a dim made up during inference: that dim is simply
  // unknown, not something a --dim could fix.
  const std::vector<std::string>& SymbolsBehind(const std::string& dim_param);

 private:
  std::optional<int64_t> Lookup(std::string_view name);
  // kCarrier: the model's graph inputs, whose symbols are the free dimensions.
  enum class Role { kCarrier, kOther };
  // Every name in `text` (a symbol or an expression) is carried by a graph input.
  bool IsCarried(const std::string& text);
  void BindGraph(onnx::GraphProto& graph, bool is_model_graph, ImportContext& context);
  // True when a bound symbol no graph input carries gave one of the dims a value.
  bool BindType(onnx::TypeProto& type, const std::string& value_name, Role role,
                ImportContext& context);
  bool BindShape(onnx::TensorShapeProto& shape, const std::string& value_name, Role role,
                 ImportContext& context);
  // Adds the symbols `text` names to those the model's graph inputs carry.
  void NoteCarried(const std::string& text);
  // `text`'s value with the bound dims (cached), or none while a symbol in it is unbound.
  std::optional<int64_t> Evaluate(const std::string& text);
  void BindValueInfos(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>& infos, Role role,
                      ImportContext& context);

  static const DimValues kNoDefaults;
  const DimValues& dims_;
  const DimValues& defaults_;
  DimValues used_;
  std::unordered_set<std::string> unbound_symbols_;
  std::unordered_set<std::string> carried_symbols_;      // named by the model's graph inputs
  std::unordered_map<std::string, bool> carried_texts_;  // IsCarried, per dim_param text
  // Evaluated dim_param text -> value (when bound), so repeated dims cost one hash lookup.
  std::unordered_map<std::string, std::optional<int64_t>> evaluated_;
  std::unordered_map<std::string, std::vector<std::string>> symbols_behind_;
};

}  // namespace hyperplan::onnx_import
