// Contents of shape tensors through elementwise operators with numpy broadcasting: integer
// arithmetic, comparisons, logic and Where (see data_rules.h).
#include <algorithm>
#include <functional>
#include <limits>
#include <string>

#include "onnx/data_rules.h"

namespace hyperplan::onnx_import {
namespace {

using Dimension = onnx::TensorShapeProto::Dimension;
// One output element from the inputs' elements at its position.
using ElementFn = std::function<Dimension(const std::vector<const Dimension*>&)>;

// The numpy broadcast of `shapes` (right-aligned; a 1 stretches), or nullopt if they clash.
std::optional<std::vector<int64_t>> BroadcastDims(const std::vector<std::vector<int64_t>>& shapes) {
  size_t rank = 0;
  for (const auto& shape : shapes) rank = std::max(rank, shape.size());
  std::vector<int64_t> out(rank, 1);
  for (const auto& shape : shapes) {
    const size_t offset = rank - shape.size();
    for (size_t i = 0; i < shape.size(); ++i) {
      int64_t& dim = out[offset + i];
      if (shape[i] == dim || shape[i] == 1) continue;
      if (dim != 1) return std::nullopt;
      dim = shape[i];
    }
  }
  return out;
}

// The flat index into `shape` (right-aligned against `out`, broadcast) of output position
// `index`.
int64_t SourceIndex(int64_t index, const std::vector<int64_t>& out,
                    const std::vector<int64_t>& shape) {
  int64_t source = 0;
  int64_t stride = 1;
  const size_t offset = out.size() - shape.size();
  for (size_t axis = out.size(); axis-- > 0;) {
    const int64_t coordinate = index % out[axis];
    index /= out[axis];
    if (axis < offset) continue;
    const int64_t dim = shape[axis - offset];
    if (dim != 1) source += coordinate * stride;
    stride *= dim;
  }
  return source;
}

// Applies `fn` to every broadcast position of inputs [first, ...) whose contents are all
// known (values or symbols) and whose types hold integers or bools.
std::optional<onnx::TensorShapeProto> Broadcast(const std::vector<DataRuleInput>& inputs,
                                                size_t first, const ElementFn& fn) {
  if (inputs.size() <= first) return std::nullopt;
  std::vector<std::vector<int64_t>> shapes;
  for (size_t i = first; i < inputs.size(); ++i) {
    const std::optional<std::vector<int64_t>> dims = ContentDims(inputs[i]);
    if (inputs[i].values == nullptr || !dims || !IsIntegerOrBool(inputs[i].elem_type)) {
      return std::nullopt;
    }
    int64_t elements = 1;
    for (int64_t dim : *dims) {
      elements *= dim;
      if (elements > kMaxDataElements) return std::nullopt;
    }
    if (elements != inputs[i].values->dim_size()) return std::nullopt;  // stale contents
    shapes.push_back(*dims);
  }
  const std::optional<std::vector<int64_t>> out = BroadcastDims(shapes);
  if (!out) return std::nullopt;
  int64_t count = 1;
  for (int64_t dim : *out) {
    count *= dim;  // each dim at most kMaxDataElements (ContentDims): no overflow here
    if (count > kMaxDataElements) return std::nullopt;
  }
  onnx::TensorShapeProto result;
  std::vector<const Dimension*> operands(shapes.size());
  for (int64_t index = 0; index < count; ++index) {
    for (size_t i = 0; i < shapes.size(); ++i) {
      const int64_t source = SourceIndex(index, *out, shapes[i]);
      operands[i] = &inputs[first + i].values->dim(static_cast<int>(source));
    }
    *result.add_dim() = fn(operands);
  }
  return result;
}

Dimension Value(int64_t value) {
  Dimension dim;
  dim.set_dim_value(value);
  return dim;
}

bool AllKnown(const std::vector<const Dimension*>& operands) {
  return std::all_of(operands.begin(), operands.end(),
                     [](const Dimension* d) { return d->has_dim_value(); });
}

// An integer function of known operands; any symbol or unknown operand gives an unknown.
ElementFn Arithmetic(std::function<std::optional<int64_t>(const std::vector<int64_t>&)> fn) {
  return [fn = std::move(fn)](const std::vector<const Dimension*>& operands) {
    if (!AllKnown(operands)) return Dimension();
    std::vector<int64_t> values;
    for (const Dimension* d : operands) values.push_back(d->dim_value());
    const std::optional<int64_t> result = fn(values);
    return result ? Value(*result) : Dimension();
  };
}

// Integer Div truncates toward zero (C++ and ONNX Runtime); by zero it is unknown.
std::optional<int64_t> Divide(const std::vector<int64_t>& v) {
  if (v[1] == 0 || (v[0] == std::numeric_limits<int64_t>::min() && v[1] == -1)) {
    return std::nullopt;
  }
  return v[0] / v[1];
}

std::optional<onnx::TensorShapeProto> DivRule(const onnx::NodeProto& /*node*/,
                                              const std::vector<DataRuleInput>& inputs) {
  if (inputs.size() != 2) return std::nullopt;
  return Broadcast(inputs, 0, Arithmetic(&Divide));
}

// Mod: fmod 0 takes the divisor's sign (Python's %), fmod 1 the dividend's (C's fmod).
std::optional<onnx::TensorShapeProto> ModRule(const onnx::NodeProto& node,
                                              const std::vector<DataRuleInput>& inputs) {
  if (inputs.size() != 2) return std::nullopt;
  const bool fmod = IntAttribute(node, "fmod", 0) != 0;
  return Broadcast(inputs, 0, Arithmetic([fmod](const std::vector<int64_t>& v) {
                     std::optional<int64_t> quotient = Divide(v);
                     if (!quotient) return quotient;
                     int64_t remainder = v[0] - *quotient * v[1];
                     if (!fmod && remainder != 0 && ((remainder < 0) != (v[1] < 0))) {
                       remainder += v[1];
                     }
                     return std::optional<int64_t>(remainder);
                   }));
}

std::optional<onnx::TensorShapeProto> MaxRule(const onnx::NodeProto& /*node*/,
                                              const std::vector<DataRuleInput>& inputs) {
  return Broadcast(inputs, 0, Arithmetic([](const std::vector<int64_t>& v) {
                     return std::optional<int64_t>(*std::max_element(v.begin(), v.end()));
                   }));
}

std::optional<onnx::TensorShapeProto> MinRule(const onnx::NodeProto& /*node*/,
                                              const std::vector<DataRuleInput>& inputs) {
  return Broadcast(inputs, 0, Arithmetic([](const std::vector<int64_t>& v) {
                     return std::optional<int64_t>(*std::min_element(v.begin(), v.end()));
                   }));
}

// A two-operand predicate or logical operator, 1 for true and 0 for false.
template <typename Predicate>
std::optional<onnx::TensorShapeProto> BinaryPredicate(const std::vector<DataRuleInput>& inputs,
                                                      Predicate predicate) {
  if (inputs.size() != 2) return std::nullopt;
  return Broadcast(inputs, 0, Arithmetic([predicate](const std::vector<int64_t>& v) {
                     return std::optional<int64_t>(predicate(v[0], v[1]) ? 1 : 0);
                   }));
}

#define HYPERPLAN_PREDICATE_RULE(NAME, EXPRESSION)                                       \
  std::optional<onnx::TensorShapeProto> NAME(const onnx::NodeProto& /*node*/,            \
                                             const std::vector<DataRuleInput>& inputs) { \
    return BinaryPredicate(inputs, [](int64_t a, int64_t b) { return EXPRESSION; });     \
  }
HYPERPLAN_PREDICATE_RULE(EqualRule, a == b)
HYPERPLAN_PREDICATE_RULE(LessRule, a < b)
HYPERPLAN_PREDICATE_RULE(GreaterRule, a > b)
HYPERPLAN_PREDICATE_RULE(LessOrEqualRule, a <= b)
HYPERPLAN_PREDICATE_RULE(GreaterOrEqualRule, a >= b)
HYPERPLAN_PREDICATE_RULE(AndRule, a != 0 && b != 0)
HYPERPLAN_PREDICATE_RULE(OrRule, a != 0 || b != 0)
HYPERPLAN_PREDICATE_RULE(XorRule, (a != 0) != (b != 0))
#undef HYPERPLAN_PREDICATE_RULE

std::optional<onnx::TensorShapeProto> NotRule(const onnx::NodeProto& /*node*/,
                                              const std::vector<DataRuleInput>& inputs) {
  if (inputs.size() != 1) return std::nullopt;
  return Broadcast(inputs, 0, Arithmetic([](const std::vector<int64_t>& v) {
                     return std::optional<int64_t>(v[0] == 0 ? 1 : 0);
                   }));
}

// Where(condition, x, y): the chosen operand's element as it is, a symbol included.
std::optional<onnx::TensorShapeProto> WhereRule(const onnx::NodeProto& /*node*/,
                                                const std::vector<DataRuleInput>& inputs) {
  if (inputs.size() != 3) return std::nullopt;
  return Broadcast(inputs, 0, [](const std::vector<const Dimension*>& operands) {
    if (!operands[0]->has_dim_value()) return Dimension();
    return operands[0]->dim_value() != 0 ? *operands[1] : *operands[2];
  });
}

// Expand(x, shape): x broadcast against `shape` (numpy rules, so a 1 in shape keeps x's dim).
std::optional<onnx::TensorShapeProto> ExpandRule(const onnx::NodeProto& /*node*/,
                                                 const std::vector<DataRuleInput>& inputs) {
  if (inputs.size() != 2) return std::nullopt;
  const std::optional<std::vector<int64_t>> shape = KnownValues(inputs[1].values);
  if (!shape) return std::nullopt;
  int64_t count = 1;
  for (int64_t dim : *shape) {
    if (dim < 0) return std::nullopt;
    count *= dim;
    if (count > kMaxDataElements) return std::nullopt;
  }
  // The shape as an input of that shape (its contents unused), so Broadcast does the rest.
  onnx::TensorShapeProto zeros;
  for (int64_t i = 0; i < count; ++i) zeros.add_dim()->set_dim_value(0);
  DataRuleInput target;
  target.values = &zeros;
  target.rank = static_cast<int>(shape->size());
  target.dims = *shape;
  target.elem_type = onnx::TensorProto::INT64;
  return Broadcast({inputs[0], target}, 0,
                   [](const std::vector<const Dimension*>& operands) { return *operands[0]; });
}

}  // namespace

DataRule FindElementwiseDataRule(std::string_view op_type) {
  static const std::pair<std::string_view, DataRule> kRules[] = {
      {"Div", &DivRule},
      {"Mod", &ModRule},
      {"Max", &MaxRule},
      {"Min", &MinRule},
      {"Equal", &EqualRule},
      {"Less", &LessRule},
      {"Greater", &GreaterRule},
      {"LessOrEqual", &LessOrEqualRule},
      {"GreaterOrEqual", &GreaterOrEqualRule},
      {"And", &AndRule},
      {"Or", &OrRule},
      {"Xor", &XorRule},
      {"Not", &NotRule},
      {"Where", &WhereRule},
      {"Expand", &ExpandRule},
  };
  for (const auto& [name, rule] : kRules) {
    if (name == op_type) return rule;
  }
  return nullptr;
}

}  // namespace hyperplan::onnx_import
