// Per-node shape inference over dense slots (see shape_propagation.h).
#include "onnx/shape_propagation.h"

#include <google/protobuf/arena.h>
#include <onnx/defs/schema.h>
#include <onnx/defs/tensor_proto_util.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <iterator>
#include <string_view>

#include "onnx/data_rules.h"
#include "onnx/schema_registry.h"
#include "onnx/type_merge.h"

namespace hyperplan::onnx_import {
namespace {

using OuterTypes = std::unordered_map<std::string, onnx::TypeProto*>;

constexpr int64_t kFailuresShownPerCategory = 20;

std::string FirstLine(std::string_view text) {
  const size_t end = text.find('\n');
  return std::string(text.substr(0, end));
}

[[noreturn]] void OutOfBounds(const char* what, size_t index) {
  throw onnx::InferenceError("[ShapeInferenceError] " + std::string(what) + " " +
                             std::to_string(index) + " is out of bounds");
}

const onnx::AttributeProto* FindAttribute(const onnx::NodeProto& node, const std::string& name) {
  for (const onnx::AttributeProto& attribute : node.attribute()) {
    if (attribute.name() == name) return &attribute;
  }
  return nullptr;
}

int Rank(const onnx::TypeProto* type) {
  if (type == nullptr || !type->has_tensor_type() || !type->tensor_type().has_shape()) return -1;
  return type->tensor_type().shape().dim_size();
}

// Contents that data propagation found in full (every element a value) as a constant tensor,
// made once per slot: ONNX 1.12's inference functions read a Pad's pads, a Slice's starts and
// ends, an Unsqueeze's axes, a ConstantOfShape's shape or a Range's bounds only from a constant
// (getInputData), so computed contents size their outputs too. Only int64 and int32 tensors of
// known dims holding at least one element (ONNX reads element 0 of scalars unchecked); nullptr
// otherwise.
const onnx::TensorProto* FoldedConstant(Slot& slot, google::protobuf::Arena* arena) {
  if (slot.folded != nullptr || slot.data == nullptr || slot.data->dim_size() == 0) {
    return slot.folded;
  }
  if (Rank(slot.type) < 0) return nullptr;
  const int32_t elem_type = slot.type->tensor_type().elem_type();
  if (elem_type != onnx::TensorProto::INT64 && elem_type != onnx::TensorProto::INT32) {
    return nullptr;
  }
  auto* tensor = google::protobuf::Arena::CreateMessage<onnx::TensorProto>(arena);
  tensor->set_data_type(elem_type);
  int64_t elements = 1;
  for (const onnx::TensorShapeProto::Dimension& dim : slot.type->tensor_type().shape().dim()) {
    // Negative or huge dims (a malformed model): no contents have that shape.
    if (!dim.has_dim_value() || dim.dim_value() < 0 || dim.dim_value() > kMaxDataElements) {
      return nullptr;
    }
    tensor->add_dims(dim.dim_value());
    elements *= dim.dim_value();
    if (elements > kMaxDataElements) return nullptr;
  }
  if (elements != slot.data->dim_size()) return nullptr;  // contents of another shape: stale
  for (const onnx::TensorShapeProto::Dimension& dim : slot.data->dim()) {
    if (!dim.has_dim_value()) return nullptr;
    if (elem_type == onnx::TensorProto::INT64) {
      tensor->add_int64_data(dim.dim_value());
    } else {
      tensor->add_int32_data(static_cast<int32_t>(dim.dim_value()));
    }
  }
  slot.folded = tensor;
  return tensor;
}

// One node's view of its scope, as ONNX's inference functions ask for it.
class NodeInferenceContext final : public onnx::InferenceContext {
 public:
  NodeInferenceContext(ScopeNode& node, SlotTable& slots, google::protobuf::Arena* arena,
                       onnx::shape_inference::GraphInferenceContext* graph_context)
      : node_(node), slots_(slots), arena_(arena), graph_context_(graph_context) {
    outputs_.reserve(node.outputs.size());
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      outputs_.push_back(google::protobuf::Arena::CreateMessage<onnx::TypeProto>(arena));
    }
  }

  const onnx::AttributeProto* getAttribute(const std::string& name) const override {
    return FindAttribute(*node_.proto, name);
  }
  size_t getNumInputs() const override { return node_.inputs.size(); }
  const onnx::TypeProto* getInputType(size_t index) const override {
    const Slot* slot = InputSlot(index);
    return slot != nullptr ? slot->type : nullptr;
  }
  // Contents in an external file are unknown here: they are never read. Contents computed
  // from shapes count as constants (FoldedConstant).
  const onnx::TensorProto* getInputData(size_t index) const override {
    Slot* slot = InputSlot(index);
    if (slot == nullptr) return nullptr;
    if (slot->constant == nullptr) return FoldedConstant(*slot, arena_);
    return slot->constant->data_location() == onnx::TensorProto::EXTERNAL ? nullptr
                                                                          : slot->constant;
  }
  const onnx::SparseTensorProto* getInputSparseData(size_t index) const override {
    const Slot* slot = InputSlot(index);
    return slot != nullptr ? slot->sparse_initializer : nullptr;
  }
  const onnx::TensorShapeProto* getSymbolicInput(size_t index) const override {
    const Slot* slot = InputSlot(index);
    return slot != nullptr ? slot->data : nullptr;
  }
  size_t getNumOutputs() const override { return outputs_.size(); }
  onnx::TypeProto* getOutputType(size_t index) override {
    if (index >= outputs_.size()) OutOfBounds("Output", index);
    return outputs_[index];
  }
  onnx::GraphInferencer* getGraphAttributeInferencer(const std::string& name) override {
    if (graph_context_ == nullptr) {
      throw onnx::InferenceError("[TypeInferenceError] no graph attribute '" + name + "'");
    }
    auto it = inferencers_.find(name);
    if (it != inferencers_.end()) return it->second.get();
    for (onnx::AttributeProto& attribute : *node_.proto->mutable_attribute()) {
      if (attribute.name() == name && attribute.has_g()) {
        auto inferencer = std::make_unique<onnx::shape_inference::GraphInferencerImpl>(
            *attribute.mutable_g(), *graph_context_);
        return inferencers_.emplace(name, std::move(inferencer)).first->second.get();
      }
    }
    throw onnx::InferenceError("[TypeInferenceError] attribute '" + name + "' holds no graph");
  }

  onnx::TypeProto* output(size_t index) const { return outputs_[index]; }

 private:
  Slot* InputSlot(size_t index) const {
    if (index >= node_.inputs.size()) OutOfBounds("Input", index);
    const int32_t slot = node_.inputs[index];
    return slot == kNoSlot ? nullptr : &slots_[slot];
  }

  ScopeNode& node_;
  SlotTable& slots_;  // mutable only to cache FoldedConstant
  google::protobuf::Arena* arena_;
  onnx::shape_inference::GraphInferenceContext* graph_context_;
  std::vector<onnx::TypeProto*> outputs_;
  std::unordered_map<std::string, std::unique_ptr<onnx::GraphInferencer>> inferencers_;
};

// The integer contents of a constant as data propagation represents them (flattened values),
// or nullptr for other element types, external or malformed contents, or more than
// kMaxDataElements elements.
const onnx::TensorShapeProto* ConstantContents(const onnx::TensorProto& tensor,
                                               google::protobuf::Arena* arena) {
  int64_t elements = 1;
  for (int64_t dim : tensor.dims()) {
    elements *= dim;
    if (dim < 0 || elements > kMaxDataElements) return nullptr;
  }
  std::vector<int64_t> values;
  try {
    if (tensor.data_type() == onnx::TensorProto::INT64) {
      values = onnx::ParseData<int64_t>(&tensor);
    } else if (tensor.data_type() == onnx::TensorProto::INT32) {
      const std::vector<int32_t> narrow = onnx::ParseData<int32_t>(&tensor);
      values.assign(narrow.begin(), narrow.end());
    } else {
      return nullptr;
    }
  } catch (const std::exception&) {
    return nullptr;  // external or malformed contents: simply not known
  }
  auto* data = google::protobuf::Arena::CreateMessage<onnx::TensorShapeProto>(arena);
  for (int64_t value : values) data->add_dim()->set_dim_value(value);
  return data;
}

// One node's view for data propagation: the integer contents of small tensors (shapes and
// indices), computed statically so that Reshape(x, Concat(Shape(y)[0], -1)) gets a shape.
class NodeDataContext final : public onnx::DataPropagationContext {
 public:
  NodeDataContext(ScopeNode& node, SlotTable& slots, google::protobuf::Arena* arena)
      : node_(node), slots_(slots), arena_(arena) {}

  const onnx::AttributeProto* getAttribute(const std::string& name) const override {
    return FindAttribute(*node_.proto, name);
  }
  size_t getNumInputs() const override { return node_.inputs.size(); }
  const onnx::TypeProto* getInputType(size_t index) const override {
    Slot* slot = InputSlot(index);
    return slot != nullptr ? slot->type : nullptr;
  }
  size_t getNumOutputs() const override { return node_.outputs.size(); }
  const onnx::TypeProto* getOutputType(size_t index) const override {
    if (index >= node_.outputs.size()) OutOfBounds("Output", index);
    const int32_t slot = node_.outputs[index];
    return slot == kNoSlot ? nullptr : slots_[slot].type;
  }
  const onnx::TensorShapeProto* getInputData(size_t index) override {
    Slot* slot = InputSlot(index);
    if (slot == nullptr) return nullptr;
    // ONNX's own propagators expect scalars and 1-D tensors only: they would read the
    // contents of a [4, 2] tensor as 8 values of one axis.
    if (Rank(slot->type) > 1) return nullptr;
    if (slot->data == nullptr && slot->constant != nullptr && slot->constant->dims_size() <= 1) {
      slot->data = ConstantContents(*slot->constant, arena_);
    }
    return slot->data;
  }
  void addOutputData(size_t index, onnx::TensorShapeProto&& data) override {
    if (index >= node_.outputs.size()) OutOfBounds("Output", index);
    const int32_t slot = node_.outputs[index];
    if (slot == kNoSlot) return;
    auto* stored = google::protobuf::Arena::CreateMessage<onnx::TensorShapeProto>(arena_);
    stored->Swap(&data);
    slots_[slot].data = stored;
  }

 private:
  Slot* InputSlot(size_t index) const {
    if (index >= node_.inputs.size()) OutOfBounds("Input", index);
    const int32_t slot = node_.inputs[index];
    return slot == kNoSlot ? nullptr : &slots_[slot];
  }

  ScopeNode& node_;
  SlotTable& slots_;
  google::protobuf::Arena* arena_;
};

onnx::TypeProto* InitializerType(int32_t elem_type,
                                 const google::protobuf::RepeatedField<int64_t>& dims,
                                 google::protobuf::Arena* arena) {
  auto* type = google::protobuf::Arena::CreateMessage<onnx::TypeProto>(arena);
  onnx::TypeProto_Tensor* tensor_type = type->mutable_tensor_type();
  tensor_type->set_elem_type(elem_type);
  onnx::TensorShapeProto* shape = tensor_type->mutable_shape();
  for (int64_t dim : dims) shape->add_dim()->set_dim_value(dim);
  return type;
}

std::unordered_map<std::string, int> OnnxOpsetMap(
    const google::protobuf::RepeatedPtrField<onnx::OperatorSetIdProto>& imports) {
  std::unordered_map<std::string, int> versions;
  for (const onnx::OperatorSetIdProto& import : imports) {
    versions[import.domain()] = static_cast<int>(import.version());
    // ONNX looks nodes up by their literal domain; "" and "ai.onnx" are the same one.
    if (IsDefaultDomain(import.domain())) {
      versions[""] = static_cast<int>(import.version());
      versions["ai.onnx"] = static_cast<int>(import.version());
    }
  }
  return versions;
}

bool SameKnownShape(const onnx::TypeProto* a, const onnx::TypeProto* b) {
  if (a == nullptr || b == nullptr || !a->has_tensor_type() || !b->has_tensor_type()) return false;
  if (!a->tensor_type().has_shape() || !b->tensor_type().has_shape()) return false;
  const onnx::TensorShapeProto& left = a->tensor_type().shape();
  const onnx::TensorShapeProto& right = b->tensor_type().shape();
  if (left.dim_size() != right.dim_size()) return false;
  for (int i = 0; i < left.dim_size(); ++i) {
    if (!left.dim(i).has_dim_value() || !right.dim(i).has_dim_value() ||
        left.dim(i).dim_value() != right.dim(i).dim_value()) {
      return false;
    }
  }
  return true;
}

// ONNX 1.12 gives Loop's carried outputs only an element type, since a carried value may change
// shape between iterations. When the initial value and the body's result have one and the same
// known shape, it cannot change, and the output has it too.
void RefineLoopCarriedShapes(const ScopeNode& node, const SlotTable& slots,
                             NodeInferenceContext& inference) {
  if (node.bodies.empty()) return;
  const onnx::GraphProto& body = node.bodies.front()->graph();
  for (size_t i = 0; i + 2 < node.inputs.size() && i < node.outputs.size(); ++i) {
    onnx::TypeProto* output = inference.output(i);
    if (!output->has_tensor_type() || output->tensor_type().has_shape()) continue;
    const int32_t initial = node.inputs[i + 2];
    if (initial == kNoSlot || static_cast<int>(i) + 1 >= body.output_size()) continue;
    const onnx::TypeProto* result = &body.output(static_cast<int>(i) + 1).type();
    if (SameKnownShape(slots[initial].type, result)) {
      *output->mutable_tensor_type()->mutable_shape() = result->tensor_type().shape();
    }
  }
}

// Every dim of a tensor type, when all are known.
std::optional<std::vector<int64_t>> KnownDims(const onnx::TypeProto* type) {
  if (Rank(type) < 0) return std::nullopt;
  std::vector<int64_t> dims;
  for (const onnx::TensorShapeProto::Dimension& dim : type->tensor_type().shape().dim()) {
    if (!dim.has_dim_value()) return std::nullopt;
    dims.push_back(dim.dim_value());
  }
  return dims;
}

// The contents a data rule reads of a slot: propagated ones, else its constant's.
DataRuleInput RuleInput(const Slot& slot, google::protobuf::Arena* arena) {
  DataRuleInput input;
  input.present = true;
  input.values = slot.data;
  if (input.values == nullptr && slot.constant != nullptr) {
    input.values = ConstantContents(*slot.constant, arena);
  }
  input.rank = Rank(slot.type);
  input.dims = KnownDims(slot.type);
  if (slot.type != nullptr && slot.type->has_tensor_type()) {
    input.elem_type = slot.type->tensor_type().elem_type();
  }
  return input;
}

// hyperplan's contents rule for an operator (data_rules.h): the first output's contents from
// the inputs' contents, dims and element types.
void ApplyDataRule(DataRule rule, const ScopeNode& node, SlotTable& slots,
                   google::protobuf::Arena* arena) {
  if (node.outputs.empty() || node.outputs[0] == kNoSlot) return;
  std::vector<DataRuleInput> inputs;
  for (int32_t id : node.inputs) {
    inputs.push_back(id == kNoSlot ? DataRuleInput() : RuleInput(slots[id], arena));
  }
  std::optional<onnx::TensorShapeProto> contents = rule(*node.proto, inputs);
  if (!contents) return;
  auto* stored = google::protobuf::Arena::CreateMessage<onnx::TensorShapeProto>(arena);
  stored->Swap(&*contents);
  slots[node.outputs[0]].data = stored;
}

// ONNX 1.12's data propagators dereference getInputType(i) without checking it (a value after
// an operator nothing can infer has no type; a required input may be omitted with ""): run one
// only when every input it is given has a type and no required input is missing. Contents that
// depend on an untyped or absent value are unknown anyway.
bool EveryInputTyped(const ScopeNode& node, const SlotTable& slots, const onnx::OpSchema& schema) {
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const int32_t input = node.inputs[i];
    if (input == kNoSlot ? static_cast<int>(i) < schema.min_input()
                         : slots[input].type == nullptr) {
      return false;
    }
  }
  return node.inputs.size() >= static_cast<size_t>(schema.min_input());
}

// ONNX 1.12's data propagator of Add, Sub, Mul and Div reads dim 0 of an empty contents vector
// when one input's contents are empty and the other's have one element (an empty vector
// broadcast against a one-element one; SEGV, found by the onnx-import fuzzer). Such contents
// broadcast to nothing useful: propagate only when both are non-empty, or both empty.
bool MathDataBroadcasts(const onnx::NodeProto& proto, onnx::DataPropagationContext& data) {
  static constexpr std::string_view kMathOps[] = {"Add", "Sub", "Mul", "Div"};
  if (!IsDefaultDomain(proto.domain()) ||
      std::find(std::begin(kMathOps), std::end(kMathOps), proto.op_type()) == std::end(kMathOps) ||
      data.getNumInputs() < 2) {
    return true;
  }
  const onnx::TensorShapeProto* left = data.getInputData(0);
  const onnx::TensorShapeProto* right = data.getInputData(1);
  if (left == nullptr || right == nullptr) return true;  // the propagator returns early
  return (left->dim_size() == 0) == (right->dim_size() == 0);
}

// ONNX 1.12's inference functions read required attributes through getAttribute(name)->...
// without a null check (Scan's num_scan_inputs and body: SEGV, found by the onnx-import
// fuzzer). The first required attribute the node lacks, or "".
std::string MissingRequiredAttribute(const onnx::NodeProto& proto, const onnx::OpSchema& schema) {
  for (const auto& entry : schema.attributes()) {
    if (!entry.second.required) continue;
    const std::string& name = entry.first;
    const bool present =
        std::any_of(proto.attribute().begin(), proto.attribute().end(),
                    [&](const onnx::AttributeProto& a) { return a.name() == name; });
    if (!present) return name;
  }
  return "";
}

// ONNX 1.12's Range inference reads element 0 of each constant input's contents without
// checking there is one (an initializer that holds no value: SEGV, found by the onnx-import
// fuzzer). Whether every constant input of `node` holds at least one value of its type, as
// ParseData reads it (raw bytes, else the typed field); inputs not constant are fine.
bool ConstantsHoldAValue(const ScopeNode& node, const SlotTable& slots) {
  for (int32_t input : node.inputs) {
    if (input == kNoSlot || slots[input].constant == nullptr) continue;
    const onnx::TensorProto& tensor = *slots[input].constant;
    if (tensor.data_location() == onnx::TensorProto::EXTERNAL) continue;  // not read
    int64_t values = 0;
    switch (tensor.data_type()) {
      case onnx::TensorProto::FLOAT:
        values = tensor.has_raw_data() ? tensor.raw_data().size() / 4 : tensor.float_data_size();
        break;
      case onnx::TensorProto::DOUBLE:
        values = tensor.has_raw_data() ? tensor.raw_data().size() / 8 : tensor.double_data_size();
        break;
      case onnx::TensorProto::INT16:
      case onnx::TensorProto::INT32:
        values = tensor.has_raw_data()
                     ? tensor.raw_data().size() /
                           (tensor.data_type() == onnx::TensorProto::INT16 ? 2 : 4)
                     : tensor.int32_data_size();
        break;
      case onnx::TensorProto::INT64:
        values = tensor.has_raw_data() ? tensor.raw_data().size() / 8 : tensor.int64_data_size();
        break;
      default:
        continue;  // a type Range refuses before reading any value
    }
    if (values < 1) return false;
  }
  return true;
}

// Whether ONNX's own data-propagation function is to run on `node`: only where hyperplan has no
// rule of its own, which runs instead (ONNX 1.12 reads every contents as 1-D; data_rules.h).
bool OnnxPropagatesData(const ScopeNode& node, const SlotTable& slots, const onnx::OpSchema* schema,
                        DataRule data_rule) {
  return data_rule == nullptr && schema != nullptr && schema->has_data_propagation_function() &&
         EveryInputTyped(node, slots, *schema);
}

// Whether the first input of `node` has known contents, without which no data rule makes any
// (so a fully declared Reshape or Transpose of activations is still not re-inferred).
bool FirstInputHasContents(const ScopeNode& node, const SlotTable& slots) {
  if (node.inputs.empty() || node.inputs[0] == kNoSlot) return false;
  const Slot& first = slots[node.inputs[0]];
  return first.data != nullptr || first.constant != nullptr;
}

// Whether the model declares every output of `node` in full, with no declaration that import
// left unverified.
bool DeclaredInFull(const ScopeNode& node, const SlotTable& slots, const ImportContext& context) {
  bool declared_in_full = true;
  for (int32_t output : node.outputs) {
    if (output != kNoSlot &&
        (!IsCompleteTensorType(slots[output].declared) ||
         context.unverified_declarations.count(std::string(slots[output].name)))) {
      declared_in_full = false;
    }
  }
  return declared_in_full;
}

// Why ONNX's inference must not run on `node` (it would crash or loop), or "" when it may.
std::string SkipReason(const ScopeNode& node, const SlotTable& slots,
                       const onnx::OpSchema* schema) {
  const onnx::NodeProto& proto = *node.proto;
  if (schema == nullptr) return "";
  if (const std::string missing = MissingRequiredAttribute(proto, *schema); !missing.empty()) {
    return "required attribute '" + missing + "' is missing";
  }
  if (IsDefaultDomain(proto.domain()) && proto.op_type() == "Range" &&
      !ConstantsHoldAValue(node, slots)) {
    return "a constant input holds no value";
  }
  return "";
}

// Runs the node's inference: the schema's function, else its function body, else the model's
// local function. Throws what ONNX throws.
void RunInference(const onnx::OpSchema* schema, const onnx::FunctionProto* local_function,
                  NodeInferenceContext& inference, const ImportContext& context) {
  // Function bodies are inferred without data propagation: ONNX would want a container for
  // results that nothing here reads.
  const onnx::ShapeInferenceOptions options(false, 0, false);
  if (schema != nullptr && schema->has_type_and_shape_inference_function()) {
    schema->GetTypeAndShapeInferenceFunction()(inference);
  } else if (schema != nullptr && schema->HasFunction()) {
    onnx::shape_inference::InferShapeForFunctionNode(*schema->GetFunction(),
                                                     &SchemaRegistry::Instance(), inference,
                                                     options, context.local_functions);
  } else if (local_function != nullptr) {
    onnx::shape_inference::InferShapeForFunctionNode(
        *local_function, OnnxOpsetMap(local_function->opset_import()), &SchemaRegistry::Instance(),
        inference, options, context.local_functions);
  }
}

// The node's contents: by this importer's rule, else by ONNX's data-propagation function.
void PropagateData(ScopeNode& node, SlotTable& slots, const onnx::OpSchema* schema,
                   DataRule data_rule, bool propagates_data, google::protobuf::Arena* arena) {
  if (data_rule != nullptr) {
    ApplyDataRule(data_rule, node, slots, arena);
  } else if (propagates_data) {
    NodeDataContext data(node, slots, arena);
    try {
      if (!MathDataBroadcasts(*node.proto, data)) return;
      schema->GetDataPropagationFunction()(data);
    } catch (const std::exception&) {
      // Contents that cannot be computed statically just stay unknown.
    }
  }
}

}  // namespace

ShapePropagator::ShapePropagator(ImportContext& context) : context_(context) {
  for (const auto& [domain, version] : context.opset_versions) onnx_opsets_[domain] = version;
  // ONNX looks body nodes up by their literal domain; "" and "ai.onnx" are the same one.
  if (auto it = onnx_opsets_.find(""); it != onnx_opsets_.end()) {
    onnx_opsets_["ai.onnx"] = it->second;
  }
}

const onnx::OpSchema* ShapePropagator::SchemaFor(const onnx::NodeProto& node) {
  if (IsDefaultDomain(node.domain())) {
    auto [it, inserted] = default_domain_schemas_.try_emplace(node.op_type(), nullptr);
    if (inserted) {
      it->second =
          SchemaRegistry::Instance().GetSchema(node.op_type(), context_.OpsetVersion(""), "");
    }
    return it->second;
  }
  auto [it, inserted] =
      other_domain_schemas_.try_emplace(node.domain() + '\n' + node.op_type(), nullptr);
  if (inserted) {
    it->second = SchemaRegistry::Instance().GetSchema(
        node.op_type(), context_.OpsetVersion(node.domain()), node.domain());
  }
  return it->second;
}

void ShapePropagator::DeclareTypes(GraphScope& scope) {
  SlotTable& slots = scope.slots();
  const auto declare = [&](const onnx::ValueInfoProto& info) {
    if (!info.has_type()) return;
    const int32_t id = scope.FindLocal(info.name());
    if (id == kNoSlot || slots[id].declared != nullptr) return;
    if (slots[id].kind == SlotKind::kInitializer || slots[id].kind == SlotKind::kCaptured) return;
    slots[id].declared = &info.type();
  };
  // Earlier declarations win: inputs, then outputs, then value_info.
  for (const onnx::ValueInfoProto& info : scope.graph().input()) declare(info);
  for (const onnx::ValueInfoProto& info : scope.graph().output()) declare(info);
  for (const onnx::ValueInfoProto& info : scope.graph().value_info()) declare(info);
  for (int32_t id : scope.initializer_slots()) {
    Slot& slot = slots[id];
    if (slot.initializer != nullptr) {
      slot.declared =
          InitializerType(slot.initializer->data_type(), slot.initializer->dims(), context_.arena);
    } else {
      const onnx::SparseTensorProto& sparse = *slot.sparse_initializer;
      slot.declared = InitializerType(sparse.values().data_type(), sparse.dims(), context_.arena);
    }
  }
  for (int32_t id : scope.captured_slots()) {
    const Slot& outer = scope.parent()->slots()[slots[id].outer_slot];
    slots[id].declared = outer.type;
    slots[id].constant = outer.constant;
    slots[id].data = outer.data;
  }
  for (Slot& slot : slots) slot.type = slot.declared;
}

void ShapePropagator::Propagate(GraphScope& scope) {
  DeclareTypes(scope);
  OuterTypes* outer_types = nullptr;
  for (int32_t index : scope.order()) InferNode(scope, scope.nodes()[index], outer_types);
  for (ScopeNode& node : scope.nodes()) {
    for (auto& body : node.bodies) Propagate(*body);
  }
}

void ShapePropagator::InferNode(GraphScope& scope, ScopeNode& node, OuterTypes*& outer_types) {
  SlotTable& slots = scope.slots();
  const onnx::NodeProto& proto = *node.proto;
  const onnx::OpSchema* schema = SchemaFor(proto);
  const onnx::FunctionProto* local_function = nullptr;
  if (schema == nullptr) {
    auto it = context_.local_functions.find(proto.domain() + ":" + proto.op_type());
    if (it != context_.local_functions.end()) local_function = it->second;
  }
  if (schema == nullptr && local_function == nullptr) {
    ++nodes_without_rule_[(IsDefaultDomain(proto.domain()) ? "" : proto.domain() + ".") +
                          proto.op_type()];
    return;
  }
  const bool has_bodies = !node.bodies.empty();
  const DataRule data_rule = FindDataRule(proto.domain(), proto.op_type());
  const bool onnx_propagates_data = OnnxPropagatesData(node, slots, schema, data_rule);
  const bool propagates_data =
      onnx_propagates_data || (data_rule != nullptr && FirstInputHasContents(node, slots));
  // A model whose declarations already size every output has nothing to gain from inference
  // here (runtimes that load it agree with them); skipping it is what makes annotated exports
  // cheap. Data propagation and bodies still need the node to run.
  if (DeclaredInFull(node, slots, context_) && !has_bodies && !propagates_data) return;

  // Bodies see every value of this scope and the enclosing ones by name, as ONNX expects.
  if (has_bodies && outer_types == nullptr) outer_types = OuterTypesOf(scope);
  std::unique_ptr<onnx::shape_inference::GraphInferenceContext> graph_context;
  if (has_bodies) {
    graph_context = std::make_unique<onnx::shape_inference::GraphInferenceContext>(
        *outer_types, onnx_opsets_, nullptr, context_.local_functions, &SchemaRegistry::Instance(),
        nullptr, static_cast<int>(context_.ir_version));
  }

  NodeInferenceContext inference(node, slots, context_.arena, graph_context.get());
  if (const std::string reason = SkipReason(node, slots, schema); !reason.empty()) {
    NoteFailure("inference", scope.where() + NodeLabel(node.name, proto) +
                                 ": shape inference skipped: " + reason);
    return;
  }
  try {
    RunInference(schema, local_function, inference, context_);
  } catch (const std::exception& error) {
    NoteFailure("inference", scope.where() + NodeLabel(node.name, proto) +
                                 ": shape inference failed: " + FirstLine(error.what()));
    return;
  }

  if (IsDefaultDomain(proto.domain()) && proto.op_type() == "Loop") {
    RefineLoopCarriedShapes(node, slots, inference);
  }
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    const int32_t output = node.outputs[i];
    onnx::TypeProto* inferred = inference.output(i);
    if (output == kNoSlot || inferred->value_case() == onnx::TypeProto::VALUE_NOT_SET) continue;
    StoreInferred(scope, slots[output], inferred, outer_types);
  }
  PropagateData(node, slots, schema, data_rule, propagates_data, context_.arena);
}

// Bodies see every value of this scope and the enclosing ones by name, outermost first so that
// an inner name hides an outer one.
OuterTypes* ShapePropagator::OuterTypesOf(const GraphScope& scope) {
  auto& map = outer_maps_.emplace_back(std::make_unique<OuterTypes>());
  std::vector<const GraphScope*> chain;
  for (const GraphScope* s = &scope; s != nullptr; s = s->parent()) chain.push_back(s);
  for (auto s = chain.rbegin(); s != chain.rend(); ++s) {
    for (const Slot& slot : (*s)->slots()) {
      // ONNX's interface takes mutable pointers but only reads outer values' types.
      if (slot.type != nullptr) {
        (*map)[std::string(slot.name)] = const_cast<onnx::TypeProto*>(slot.type);
      }
    }
  }
  return map.get();
}

// An output's inferred type replaces its declared one (a disagreement is noted) and is what
// bodies see by its name.
void ShapePropagator::StoreInferred(const GraphScope& scope, Slot& slot, onnx::TypeProto* inferred,
                                    OuterTypes* outer_types) {
  if (slot.declared != nullptr) {
    NoteInferredSymbols(scope, slot, *inferred);
    if (auto disagreement = MergeDeclaredIntoInferred(*slot.declared, *inferred)) {
      NoteFailure("conflict", scope.where() + "value '" + std::string(slot.name) +
                                  "': " + *disagreement + "; using the inferred type");
    }
  }
  slot.type = inferred;
  if (outer_types != nullptr) (*outer_types)[std::string(slot.name)] = inferred;
}

void ShapePropagator::NoteInferredSymbols(const GraphScope& scope, const Slot& slot,
                                          const onnx::TypeProto& inferred) {
  const onnx::TypeProto& declared = *slot.declared;
  if (!declared.has_tensor_type() || !inferred.has_tensor_type()) return;
  if (!declared.tensor_type().has_shape() || !inferred.tensor_type().has_shape()) return;
  const onnx::TensorShapeProto& declared_shape = declared.tensor_type().shape();
  const onnx::TensorShapeProto& inferred_shape = inferred.tensor_type().shape();
  if (declared_shape.dim_size() != inferred_shape.dim_size()) return;
  for (int axis = 0; axis < declared_shape.dim_size(); ++axis) {
    const onnx::TensorShapeProto::Dimension& symbol = declared_shape.dim(axis);
    const onnx::TensorShapeProto::Dimension& value = inferred_shape.dim(axis);
    if (symbol.dim_param().empty() || !value.has_dim_value()) continue;
    if (++symbols_inferred_ > kFailuresShownPerCategory) continue;
    context_.Note(scope.where() + "value '" + std::string(slot.name) + "': axis " +
                  std::to_string(axis) + " is declared '" + symbol.dim_param() +
                  "' and inferred as " + std::to_string(value.dim_value()) +
                  "; the inferred size is used (a name the exporter gave a size it could not "
                  "work out is not a dimension to bind)");
  }
}

void ShapePropagator::NoteFailure(const std::string& category, std::string message) {
  if (failures_shown_[category]++ < kFailuresShownPerCategory) {
    context_.Warn(std::move(message));
  } else {
    ++failures_[category];
  }
}

void ShapePropagator::Finish() {
  if (symbols_inferred_ > kFailuresShownPerCategory) {
    context_.Note(std::to_string(symbols_inferred_ - kFailuresShownPerCategory) +
                  " more declared symbols replaced by inferred sizes not listed");
  }
  for (const auto& [op, count] : nodes_without_rule_) {
    context_.Warn("no shape rule for operator '" + op + "' (" + std::to_string(count) +
                  (count == 1 ? " node" : " nodes") +
                  "): its outputs have only the sizes the model declares");
  }
  for (const auto& [category, count] : failures_) {
    context_.Warn(std::to_string(count) + " more shape " +
                  (category == "conflict" ? "disagreements" : "inference failures") +
                  " not listed");
  }
}

}  // namespace hyperplan::onnx_import
