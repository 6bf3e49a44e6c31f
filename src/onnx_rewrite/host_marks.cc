// Host marks in a rewritten model (see host_marks.h).
#include "onnx_rewrite/host_marks.h"

#include <google/protobuf/unknown_field_set.h>

#include <cstdio>

namespace hyperplan::onnx_rewrite {

namespace pb = ::hyperplan::plan::v1;

void MarkHostNode(onnx::NodeProto& node) {
  onnx::StringStringEntryProto entry;
  entry.set_key(kLayerAnnotationKey);
  entry.set_value(kHostAnnotation);
  node.GetReflection()->MutableUnknownFields(&node)->AddLengthDelimited(kNodeMetadataPropsField,
                                                                        entry.SerializeAsString());
}

std::string LayerAnnotation(const onnx::NodeProto& node) {
  const google::protobuf::UnknownFieldSet& fields = node.GetReflection()->GetUnknownFields(node);
  for (int i = 0; i < fields.field_count(); ++i) {
    const google::protobuf::UnknownField& field = fields.field(i);
    if (field.number() != kNodeMetadataPropsField ||
        field.type() != google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED) {
      continue;
    }
    onnx::StringStringEntryProto entry;
    if (entry.ParseFromString(field.length_delimited()) && entry.key() == kLayerAnnotationKey) {
      return entry.value();
    }
  }
  return "";
}

std::string JsonStringArray(const std::vector<std::string>& names) {
  std::string json = "[";
  for (size_t n = 0; n < names.size(); ++n) {
    if (n > 0) json += ",";
    json += '"';
    for (unsigned char c : names[n]) {
      if (c == '"' || c == '\\') {
        json += '\\';
        json += static_cast<char>(c);
      } else if (c < 0x20) {
        char escaped[8];
        std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
        json += escaped;
      } else {
        json += static_cast<char>(c);
      }
    }
    json += '"';
  }
  return json + "]";
}

void AddHostMetadata(const pb::Plan& plan, onnx::ModelProto& model) {
  std::vector<std::string> names;
  for (const pb::Step& step : plan.steps()) {
    if (step.kind() != pb::STEP_KIND_COMPUTE || step.unit() != pb::COMPUTE_UNIT_HOST) continue;
    if (step.node() >= 0 && step.node() < plan.nodes_size()) {
      names.push_back(plan.nodes(step.node()).name());
    }
  }
  if (names.empty()) return;
  auto add = [&](const char* key, const std::string& value) {
    onnx::StringStringEntryProto* entry = model.add_metadata_props();
    entry->set_key(key);
    entry->set_value(value);
  };
  add(kHostNodesMetadata, JsonStringArray(names));
  const int32_t tier = plan.host_lane().memory_tier();
  if (tier >= 0 && tier < plan.tiers_size()) add(kHostTierMetadata, plan.tiers(tier).name());
}

}  // namespace hyperplan::onnx_rewrite
