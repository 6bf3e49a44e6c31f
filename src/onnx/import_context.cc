// Opset lookups and node labels for messages (see import_context.h).
#include "onnx/import_context.h"

#include <limits>

namespace hyperplan::onnx_import {

int ImportContext::OpsetVersion(std::string_view domain) const {
  const std::string key = IsDefaultDomain(domain) ? std::string() : std::string(domain);
  if (auto it = opset_versions.find(key); it != opset_versions.end()) return it->second;
  // A model that uses a domain without importing it is malformed, but its operators are still
  // best described by their newest schemas (contrib domains only have version 1).
  return IsDefaultDomain(domain) ? std::numeric_limits<int>::max() / 2 : 1;
}

std::string NodeLabel(std::string_view unique_name, const onnx::NodeProto& node) {
  std::string label = "node '";
  label += unique_name;
  label += "' (";
  if (!IsDefaultDomain(node.domain())) {
    label += node.domain();
    label += '.';
  }
  label += node.op_type();
  label += ')';
  return label;
}

}  // namespace hyperplan::onnx_import
