// The rewritten ONNX model (see rewrite.h).
#include "onnx_rewrite/rewrite.h"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "hyperplan/error.h"
#include "onnx_rewrite/cache_functions.h"
#include "onnx_rewrite/external_data.h"
#include "onnx_rewrite/host_marks.h"
#include "onnx_rewrite/model_check.h"
#include "onnx_rewrite/model_file.h"

namespace hyperplan::onnx_rewrite {
namespace {

namespace pb = ::hyperplan::plan::v1;

const char* OpType(pb::StepKind kind) {
  switch (kind) {
    case pb::STEP_KIND_PREFETCH:
      return "Prefetch";
    case pb::STEP_KIND_STORE:
      return "Store";
    case pb::STEP_KIND_DETACH:
      return "Detach";
    default:
      return nullptr;
  }
}

void AddAttribute(onnx::NodeProto& node, const char* name, const std::string& value) {
  onnx::AttributeProto* attribute = node.add_attribute();
  attribute->set_name(name);
  attribute->set_type(onnx::AttributeProto::STRING);
  attribute->set_s(value);
}

void AddAttribute(onnx::NodeProto& node, const char* name, int64_t value) {
  onnx::AttributeProto* attribute = node.add_attribute();
  attribute->set_name(name);
  attribute->set_type(onnx::AttributeProto::INT);
  attribute->set_i(value);
}

class Rewriter {
 public:
  Rewriter(const pb::Plan& plan, const RewriteOptions& options, onnx::ModelProto& model)
      : plan_(plan), options_(options), model_(model), graph_(*model.mutable_graph()) {}

  int64_t Run() {
    for (const onnx::OperatorSetIdProto& opset : model_.opset_import()) {
      if (opset.domain() == kCacheDomain) {
        throw Error(ErrorKind::kModel, options_.model_path +
                                           ": already has hyperplan cache operators (it imports " +
                                           kCacheDomain + "); rewrite the original model");
      }
    }
    CollectNames();
    MatchNodes();
    std::vector<onnx::NodeProto> original(graph_.node_size());
    for (int i = 0; i < graph_.node_size(); ++i) original[i] = std::move(*graph_.mutable_node(i));
    google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
    int64_t cache_nodes = 0;
    int compute_nodes = 0;
    std::vector<bool> emitted(original.size(), false);
    for (int i = 0; i < plan_.steps_size(); ++i) {
      const pb::Step& step = plan_.steps(i);
      if (step.kind() == pb::STEP_KIND_COMPUTE) {
        const int source = OnnxNode(step.node(), i);
        if (emitted[source]) Mismatch("node '" + original[source].name() + "' runs twice");
        emitted[source] = true;
        onnx::NodeProto* node = nodes.Add();
        *node = std::move(original[source]);
        node->set_name(plan_.nodes(step.node()).name());
        ReadCurrentCopies(*node, ComputeTier(step, i));
        if (step.unit() == pb::COMPUTE_UNIT_HOST) MarkHostNode(*node);
        ++compute_nodes;
      } else {
        *nodes.Add() = CacheNode(step, i);
        ++cache_nodes;
      }
    }
    if (compute_nodes != static_cast<int>(original.size())) {
      Mismatch("its steps run " + std::to_string(compute_nodes) + " of the model's " +
               std::to_string(original.size()) + " nodes");
    }
    graph_.mutable_node()->Swap(&nodes);
    return cache_nodes;
  }

 private:
  [[noreturn]] void Mismatch(const std::string& what) const {
    throw Error(ErrorKind::kPlanFile,
                options_.model_path + ": the plan does not match the model: " + what);
  }

  void CollectNames() {
    for (const onnx::ValueInfoProto& input : graph_.input()) taken_.insert(input.name());
    for (const onnx::ValueInfoProto& output : graph_.output()) taken_.insert(output.name());
    for (const onnx::ValueInfoProto& info : graph_.value_info()) taken_.insert(info.name());
    for (const onnx::TensorProto& tensor : graph_.initializer()) taken_.insert(tensor.name());
    for (const onnx::NodeProto& node : graph_.node()) {
      taken_.insert(node.name());
      for (const std::string& output : node.output()) taken_.insert(output);
    }
    for (int v = 0; v < plan_.values_size(); ++v) value_index_.emplace(plan_.values(v).name(), v);
    // Compute nodes take the plan's names, so cache nodes must not.
    for (const pb::Node& node : plan_.nodes()) taken_.insert(node.name());
  }

  // Plan node -> model node: by an output (outputs are unique in ONNX), else by name.
  void MatchNodes() {
    if (plan_.nodes_size() != graph_.node_size()) {
      Mismatch("it has " + std::to_string(plan_.nodes_size()) + " nodes, the model " +
               std::to_string(graph_.node_size()));
    }
    std::unordered_map<std::string_view, int> by_output;
    std::unordered_map<std::string_view, int> by_name;
    for (int i = 0; i < graph_.node_size(); ++i) {
      const onnx::NodeProto& node = graph_.node(i);
      for (const std::string& output : node.output()) {
        if (!output.empty()) by_output.emplace(output, i);
      }
      if (!node.name().empty()) by_name.emplace(node.name(), i);
    }
    onnx_node_.assign(plan_.nodes_size(), -1);
    std::vector<bool> matched(graph_.node_size(), false);
    for (int n = 0; n < plan_.nodes_size(); ++n) {
      const pb::Node& node = plan_.nodes(n);
      int found = -1;
      if (node.outputs_size() > 0 && node.outputs(0) >= 0 &&
          node.outputs(0) < plan_.values_size()) {
        auto it = by_output.find(plan_.values(node.outputs(0)).name());
        if (it != by_output.end()) found = it->second;
      }
      if (found < 0) {
        auto it = by_name.find(node.name());
        if (it != by_name.end()) found = it->second;
      }
      if (found < 0 || matched[found]) Mismatch("node '" + node.name() + "' is not in the model");
      matched[found] = true;
      onnx_node_[n] = found;
    }
  }

  int OnnxNode(int32_t plan_node, int step) const {
    if (plan_node < 0 || plan_node >= static_cast<int32_t>(onnx_node_.size())) {
      Mismatch("steps[" + std::to_string(step) + "] names no node");
    }
    return onnx_node_[plan_node];
  }

  std::string Fresh(const std::string& base) {
    std::string name = base;
    for (int suffix = 1; taken_.count(name); ++suffix) name = base + "_" + std::to_string(suffix);
    taken_.insert(name);
    return name;
  }

  static int64_t CopyKey(int32_t value, int32_t tier) {
    return static_cast<int64_t>(value) << 32 | static_cast<uint32_t>(tier);
  }

  // The tensor that holds `value` on `tier` now: the last cache op's output that put it
  // there, else the model's own tensor.
  const std::string& CopyOn(int32_t value, int32_t tier) const {
    auto it = copy_name_.find(CopyKey(value, tier));
    return it != copy_name_.end() ? it->second : plan_.values(value).name();
  }

  int32_t DeviceTier() const { return plan_.provenance().profile().device_tier(); }

  // The tier a compute step reads from: the device's, or the host lane's for a host step.
  int32_t ComputeTier(const pb::Step& step, int index) const {
    if (step.unit() != pb::COMPUTE_UNIT_HOST) return DeviceTier();
    if (!plan_.has_host_lane()) {
      Mismatch("steps[" + std::to_string(index) + "] runs on the host, but the plan has no " +
               "host_lane");
    }
    return plan_.host_lane().memory_tier();
  }

  // A host step reads the copies on the host tier (a home copy, a Store's output or a host
  // step's output, which is the model's own tensor), a device step those on the device.
  void ReadCurrentCopies(onnx::NodeProto& node, int32_t tier) const {
    for (std::string& input : *node.mutable_input()) {
      if (input.empty()) continue;
      auto it = value_index_.find(input);
      if (it != value_index_.end()) input = CopyOn(it->second, tier);
    }
  }

  std::string TierName(int32_t tier, const std::string& field) const {
    if (tier < 0 || tier >= plan_.tiers_size()) Mismatch(field + " names no tier");
    return plan_.tiers(tier).name();
  }

  onnx::NodeProto CacheNode(const pb::Step& step, int index) {
    const std::string field = "steps[" + std::to_string(index) + "]";
    const char* op_type = OpType(step.kind());
    if (op_type == nullptr) Mismatch(field + " has an unknown kind");
    if (step.value() < 0 || step.value() >= plan_.values_size())
      Mismatch(field + " names no value");
    const std::string& value = plan_.values(step.value()).name();
    std::string kind = op_type;
    for (char& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    onnx::NodeProto node;
    node.set_domain(kCacheDomain);
    node.set_op_type(op_type);
    node.set_name(Fresh("hyperplan_" + kind + "_" + std::to_string(index)));
    const bool later_chunk = step.chunk_offset_bytes() > 0;
    node.add_input(later_chunk ? CopyOn(step.value(), step.dst_tier())
                               : CopyOn(step.value(), step.src_tier()));
    const std::string output = Fresh(value + "__" + kind + "_" + std::to_string(index));
    node.add_output(output);
    AddAttribute(node, kSrcTierAttribute, TierName(step.src_tier(), field + ".src_tier"));
    if (step.kind() != pb::STEP_KIND_DETACH) {
      AddAttribute(node, kDstTierAttribute, TierName(step.dst_tier(), field + ".dst_tier"));
      copy_name_[CopyKey(step.value(), step.dst_tier())] = output;
    } else {
      copy_name_.erase(CopyKey(step.value(), step.src_tier()));
    }
    AddAttribute(node, kStreamAttribute, step.stream());
    AddAttribute(node, kStepAttribute, index);
    onnx::AttributeProto* waits = node.add_attribute();
    waits->set_name(kWaitsForAttribute);
    waits->set_type(onnx::AttributeProto::INTS);
    for (int32_t wait : step.waits_for()) waits->add_ints(wait);
    AddAttribute(node, kBytesAttribute, step.bytes());
    if (step.reserved_bytes() > 0) AddRouted(node, step, index);
    if (later_chunk) AddAttribute(node, kChunkOffsetAttribute, step.chunk_offset_bytes());
    return node;
  }

  // A routed Prefetch names its MoE node's routing input (as the model names it) and its
  // reservation.
  void AddRouted(onnx::NodeProto& node, const pb::Step& step, int index) const {
    const onnx::NodeProto& moe = graph_.node(OnnxNode(step.routed_by(), index));
    if (moe.input_size() < 2) {
      Mismatch("steps[" + std::to_string(index) + "] is routed by a node with no routing input");
    }
    AddAttribute(node, kRouterAttribute, moe.input(1));
    AddAttribute(node, kReservedBytesAttribute, step.reserved_bytes());
  }

  const pb::Plan& plan_;
  const RewriteOptions& options_;
  onnx::ModelProto& model_;
  onnx::GraphProto& graph_;
  std::unordered_set<std::string> taken_;
  std::unordered_map<std::string, int32_t> value_index_;
  std::vector<int> onnx_node_;                          // plan node -> model node
  std::unordered_map<int64_t, std::string> copy_name_;  // (value, tier) -> tensor name
};

int64_t DefaultOpset(const onnx::ModelProto& model) {
  for (const onnx::OperatorSetIdProto& opset : model.opset_import()) {
    if (opset.domain().empty() || opset.domain() == "ai.onnx") return opset.version();
  }
  return 1;
}

void SetMetadata(onnx::ModelProto& model, const pb::Plan& plan, const RewriteOptions& options) {
  google::protobuf::RepeatedPtrField<onnx::StringStringEntryProto> kept;
  for (onnx::StringStringEntryProto& entry : *model.mutable_metadata_props()) {
    if (entry.key().rfind("hyperplan.", 0) != 0) *kept.Add() = std::move(entry);
  }
  model.mutable_metadata_props()->Swap(&kept);
  auto add = [&](const char* key, const std::string& value) {
    onnx::StringStringEntryProto* entry = model.add_metadata_props();
    entry->set_key(key);
    entry->set_value(value);
  };
  add("hyperplan.version", options.tool_version);
  add(kPlanDigestMetadata, options.plan_sha256);
  add(kModelDigestMetadata, plan.provenance().model_sha256());
  add("hyperplan.profile", plan.provenance().profile().name());
  for (const pb::BoundDim& dim : plan.provenance().bound_dims()) {
    add((std::string(kDimMetadataPrefix) + dim.name()).c_str(), std::to_string(dim.value()));
  }
}

// Every dim of a graph input or output that the plan knows (its value's shape, with the
// bound dims) replaces the declared one; dims the plan does not know stay as declared.
void FixShapes(onnx::GraphProto& graph, const pb::Plan& plan) {
  std::unordered_map<std::string_view, const pb::Value*> values;
  for (const pb::Value& value : plan.values()) values.emplace(value.name(), &value);
  auto fix = [&](onnx::ValueInfoProto& info) {
    auto found = values.find(info.name());
    if (found == values.end() || !info.type().has_tensor_type() ||
        !info.type().tensor_type().has_shape()) {
      return;
    }
    onnx::TensorShapeProto& shape = *info.mutable_type()->mutable_tensor_type()->mutable_shape();
    const pb::Value& value = *found->second;
    if (!value.size_known() || shape.dim_size() != value.shape_size()) return;
    for (int axis = 0; axis < shape.dim_size(); ++axis) {
      if (value.shape(axis) >= 0) shape.mutable_dim(axis)->set_dim_value(value.shape(axis));
    }
  };
  for (onnx::ValueInfoProto& input : *graph.mutable_input()) fix(input);
  for (onnx::ValueInfoProto& output : *graph.mutable_output()) fix(output);
}

}  // namespace

RewriteResult RewriteModel(const pb::Plan& plan, const RewriteOptions& options) {
  onnx::ModelProto model = ReadModelFile(options.model_path);
  RewriteResult result;
  result.cache_nodes = Rewriter(plan, options, model).Run();
  const bool routed = std::any_of(plan.steps().begin(), plan.steps().end(),
                                  [](const pb::Step& step) { return step.reserved_bytes() > 0; });
  const bool chunked =
      std::any_of(plan.steps().begin(), plan.steps().end(),
                  [](const pb::Step& step) { return step.chunk_offset_bytes() > 0; });
  AddCacheFunctions(model, DefaultOpset(model), routed, chunked);
  onnx::OperatorSetIdProto* opset = model.add_opset_import();
  opset->set_domain(kCacheDomain);
  opset->set_version(kCacheOpsetVersion);
  if (model.ir_version() < kFunctionsMinIrVersion) model.set_ir_version(kFunctionsMinIrVersion);
  SetMetadata(model, plan, options);
  AddHostMetadata(plan, model);
  if (options.static_shapes) FixShapes(*model.mutable_graph(), plan);
  result.external_tensors = RelocateExternalData(model, options.model_path, options.output_path);
  result.check = CheckRewrittenModel(model, options.output_path);
  result.model_bytes = SerializeModel(model);
  return result;
}

}  // namespace hyperplan::onnx_rewrite
