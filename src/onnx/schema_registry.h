// SchemaRegistry: ONNX 1.12's operator schemas, extended with hyperplan's shape rules.
//
// ONNX 1.12 knows ai.onnx up to opset 17 and no contrib domain, while LLM exports use
// com.microsoft operators and ai.onnx opsets up to 24. ONNX's global registry cannot take the
// missing schemas: its version range for ai.onnx is fixed at [1, 17] (an Attention-23 schema is
// refused), and writing into it would change ONNX for the whole process. So this registry wraps
// it instead: a lookup returns hyperplan's rule when that is the newest schema not above the
// model's opset, else ONNX's own. ONNX's inference is handed this registry (control-flow bodies
// included), so it propagates shapes through the new operators too. A model importing an
// ai.onnx opset above 17 gets, for every operator without a rule, the newest 1.12 schema, whose
// inference still holds where later versions only widened types. Built once per process;
// lookups are read-only and thread-safe. Cost per lookup: two hash lookups.
#pragma once

#include <onnx/defs/schema.h>

#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

namespace hyperplan::onnx_import {

class SchemaRegistry final : public onnx::ISchemaRegistry {
 public:
  static const SchemaRegistry& Instance();

  // `domain` may be "", "ai.onnx" (both the default domain) or a contrib domain.
  const onnx::OpSchema* GetSchema(const std::string& op_type, int max_inclusive_version,
                                  const std::string& domain) const override;

 private:
  SchemaRegistry();

  struct Entry {
    int since_version;
    const onnx::OpSchema* schema;
  };
  std::deque<onnx::OpSchema> owned_;  // stable addresses for the rules' schemas
  // domain + '\n' + op_type -> rules ordered by since_version.
  std::unordered_map<std::string, std::vector<Entry>> rules_;
};

}  // namespace hyperplan::onnx_import
