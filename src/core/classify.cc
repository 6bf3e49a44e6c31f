// Value classification by structure, exporter naming conventions and user rules (classify.h).
//
// Patterns are RE2 (linear time in the name, no recursion: std::regex backtracks recursively
// and overflows the stack on a 100k-character name). A 100k-node graph has ~300k values, so
// each built-in convention still carries a plain substring that must occur before its
// pattern is tried.
#include "hyperplan/classify.h"

#include <re2/re2.h>

#include <memory>
#include <string_view>

#include "hyperplan/error.h"

namespace hyperplan {
namespace {

struct Convention {
  ValueClass value_class;
  std::string_view required_substring;  // cheap filter before the regex
  std::string_view regex;
};

// Names real exporters give to KV caches and optimizer moments:
//  - Hugging Face Optimum / transformers.onnx: past_key_values.3.key, present.3.value
//  - onnxruntime-genai: past_key_values.3.key, present.3.key
//  - GPT-2 style exports: past_0 / present_0, past.0 / present.0
//  - decoder_with_past exports: past_key_3 / present_value_3
//  - Optimum encoder-decoders (Whisper, Marian, T5): past_key_values.3.decoder.key (self),
//    past_key_values.3.encoder.value (cross), present.3.decoder.key
//  - ORT's whisper/T5 export: past_key_self_3, past_value_cross_3, present_key_self_3
//  - hybrids' per-layer state, kept with the KV caches (transformers.js / Optimum exports of
//    LFM2, Mamba, Qwen3.5): past_conv.3, present_ssm.3, past_recurrent.3, past_conv_states.3
//  - PyTorch optimizers as exported by ORT training artifacts: <param>.exp_avg, .exp_avg_sq
//  - ORT's legacy training graphs: Moment_1_<param>, Moment_2_<param>
constexpr Convention kConventions[] = {
    {ValueClass::kKvCache, "past", R"(past_key_values[._]\d+[._](key|value))"},
    {ValueClass::kKvCache, "present", R"(present[._]\d+[._](key|value))"},
    {ValueClass::kKvCache, "past", R"(past[._](key|value)([._]\d+)?)"},
    {ValueClass::kKvCache, "present", R"(present[._](key|value)([._]\d+)?)"},
    {ValueClass::kKvCache, "past", R"(past[._]\d+)"},
    {ValueClass::kKvCache, "present", R"(present[._]\d+)"},
    {ValueClass::kKvCache, "cache", R"(.*[._](key|value)_cache([._]\d+)?)"},
    {ValueClass::kKvCache, "past", R"(past_key_values[._]\d+[._](decoder|encoder)[._](key|value))"},
    {ValueClass::kKvCache, "present", R"(present[._]\d+[._](decoder|encoder)[._](key|value))"},
    {ValueClass::kKvCache, "past", R"(past_(key|value)_(self|cross)_\d+)"},
    {ValueClass::kKvCache, "present", R"(present_(key|value)_(self|cross)_\d+)"},
    {ValueClass::kKvCache, "past", R"(past_(conv|ssm|recurrent)(_states?)?[._]\d+)"},
    {ValueClass::kKvCache, "present", R"(present_(conv|ssm|recurrent)(_states?)?[._]\d+)"},
    {ValueClass::kOptimizerState, "exp_avg", R"(.+[._]exp_avg(_sq)?)"},
    {ValueClass::kOptimizerState, "Moment_", R"(Moment_[12]_.+)"},
    {ValueClass::kOptimizerState, "moment", R"(.+[._]moment[._]?[12])"},
};

ValueClass StructuralClass(const Value& value) {
  if (value.is_initializer) return ValueClass::kWeight;
  if (value.is_graph_input) return ValueClass::kGraphInput;
  if (value.is_graph_output) return ValueClass::kGraphOutput;
  return ValueClass::kActivation;
}

RE2::Options PatternOptions() {
  RE2::Options options;
  options.set_log_errors(false);  // the error is reported once, as an Error
  return options;
}

std::unique_ptr<const RE2> CompileRule(const ClassRule& rule) {
  auto compiled = std::make_unique<const RE2>(rule.regex, PatternOptions());
  if (!compiled->ok()) {
    throw Error(ErrorKind::kUsage, "class rule " + std::string(ValueClassName(rule.value_class)) +
                                       "='" + rule.regex + "': " + ClassPatternError(rule.regex));
  }
  return compiled;
}

}  // namespace

std::string ClassPatternError(const std::string& pattern) {
  const RE2 compiled(pattern, PatternOptions());
  if (compiled.ok()) return "";
  return "invalid regular expression '" + pattern + "' (RE2 syntax): " + compiled.error();
}

const std::vector<ClassRule>& DefaultClassRules() {
  static const std::vector<ClassRule> rules = [] {
    std::vector<ClassRule> result;
    for (const Convention& convention : kConventions) {
      result.push_back({convention.value_class, std::string(convention.regex)});
    }
    return result;
  }();
  return rules;
}

void ClassifyValues(Graph& graph, const std::vector<ClassRule>& user_rules) {
  static const std::vector<std::unique_ptr<const RE2>> convention_patterns = [] {
    std::vector<std::unique_ptr<const RE2>> patterns;
    for (const ClassRule& rule : DefaultClassRules()) patterns.push_back(CompileRule(rule));
    return patterns;
  }();
  std::vector<std::unique_ptr<const RE2>> user_patterns;
  user_patterns.reserve(user_rules.size());
  for (const ClassRule& rule : user_rules) user_patterns.push_back(CompileRule(rule));

  for (Value& value : graph.values) {
    value.value_class = StructuralClass(value);
    for (size_t i = 0; i < std::size(kConventions); ++i) {
      if (value.name.find(kConventions[i].required_substring) == std::string::npos) continue;
      if (RE2::FullMatch(value.name, *convention_patterns[i])) {
        value.value_class = kConventions[i].value_class;
        break;
      }
    }
    for (size_t i = 0; i < user_rules.size(); ++i) {
      if (RE2::FullMatch(value.name, *user_patterns[i])) {
        value.value_class = user_rules[i].value_class;
        break;
      }
    }
  }
}

}  // namespace hyperplan
