// The schema registry that layers hyperplan's shape rules over ONNX's (see schema_registry.h).
#include "onnx/schema_registry.h"

#include <algorithm>

#include "onnx/import_context.h"
#include "onnx/shape_rules.h"

namespace hyperplan::onnx_import {
namespace {

std::string Key(const std::string& domain, const std::string& op_type) {
  return domain + '\n' + op_type;
}

}  // namespace

SchemaRegistry::SchemaRegistry() {
  std::vector<ShapeRule> rules = ContribShapeRules();
  for (auto* family : {ContribAttentionShapeRules, ContribEmbeddingShapeRules, NewOnnxShapeRules}) {
    for (ShapeRule& rule : family()) rules.push_back(std::move(rule));
  }
  for (ShapeRule& rule : rules) {
    const onnx::OpSchema* schema = rule.same_as;
    if (rule.infer) {
      onnx::OpSchema& owned = owned_.emplace_back(rule.op_type, __FILE__, __LINE__);
      owned.SetDomain(rule.domain)
          .SinceVersion(rule.since_version)
          .AllowUncheckedAttributes()
          .TypeAndShapeInferenceFunction(std::move(rule.infer));
      schema = &owned;
    }
    if (schema == nullptr) continue;  // a donor schema this ONNX build lacks
    rules_[Key(rule.domain, rule.op_type)].push_back({rule.since_version, schema});
  }
  for (auto& [key, entries] : rules_) {
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return a.since_version < b.since_version; });
  }
}

const SchemaRegistry& SchemaRegistry::Instance() {
  static const SchemaRegistry registry;
  return registry;
}

const onnx::OpSchema* SchemaRegistry::GetSchema(const std::string& op_type,
                                                int max_inclusive_version,
                                                const std::string& domain) const {
  static const std::string kDefaultDomain;
  const std::string& canonical = IsDefaultDomain(domain) ? kDefaultDomain : domain;
  const onnx::OpSchema* onnx_schema =
      onnx::OpSchemaRegistry::Schema(op_type, max_inclusive_version, canonical);
  auto it = rules_.find(Key(canonical, op_type));
  if (it == rules_.end()) return onnx_schema;
  const Entry* newest = nullptr;
  for (const Entry& entry : it->second) {
    if (entry.since_version <= max_inclusive_version) newest = &entry;
  }
  if (newest == nullptr) return onnx_schema;
  if (onnx_schema != nullptr && onnx_schema->SinceVersion() >= newest->since_version) {
    return onnx_schema;
  }
  return newest->schema;
}

}  // namespace hyperplan::onnx_import
