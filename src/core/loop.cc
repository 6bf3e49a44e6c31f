// Alias pairs and the loop graph (see loop.h).
#include "hyperplan/loop.h"

#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <string_view>

#include "hyperplan/error.h"

namespace hyperplan {
namespace {

// One exporter convention: outputs whose whole name matches `out_regex` (RE2) feed back into
// the input `in_template` names (\1..\9: the match's groups). Where exporters found them:
// Optimum's exporters and ORT GenAI's model builder (present.N.key, past_key_values.N.key),
// Optimum's encoder-decoder configs (Whisper, Marian, T5: past_key_values.N.decoder.key and
// .encoder.key), ORT's whisper/T5 export (past_key_self_N, past_key_cross_N), ORT's GPT-2
// export (packed past_N), transformers.js hybrids (LFM2 past_conv.N, Mamba past_ssm.N,
// Qwen3.5 past_recurrent.N) and ORT training artifacts (X.updated).
struct Convention {
  std::string_view name;
  std::string_view out_regex;
  std::string_view in_template;
};

constexpr std::array<Convention, 10> kConventions{{
    {"optimum / ort-genai kv", R"(present\.(\d+)\.(key|value))", R"(past_key_values.\1.\2)"},
    {"encoder-decoder self kv (optimum)", R"(present\.(\d+)\.decoder\.(key|value))",
     R"(past_key_values.\1.decoder.\2)"},
    {"encoder-decoder self kv (ort whisper)", R"(present_(key|value)_self_(\d+))",
     R"(past_\1_self_\2)"},
    {"split kv", R"(present_(key|value)_(\d+))", R"(past_\1_\2)"},
    {"packed kv", R"(present([._])(\d+))", R"(past\1\2)"},
    {"conv / ssm / recurrent state", R"(present_(conv|ssm|recurrent)(_states?)?([._]\d+))",
     R"(past_\1\2\3)"},
    {"optimizer update", R"((.+)\.updated(\..+)?)", R"(\1\2)"},
    // The catch-all of earlier versions, for exporters' other suffixes.
    {"present prefix", R"(present\.(.*))", R"(past_key_values.\1)"},
    {"present prefix", R"(present(.*))", R"(past_key_values\1)"},
    {"present prefix", R"(present(.*))", R"(past\1)"},
}};

// Cross-attention caches: the encoder's K/V, read by every decoder step and never rewritten.
// An output of this naming is a first step's (or a merged decoder's) and is never paired.
constexpr std::array<std::string_view, 2> kCrossInputs{{
    R"(past_key_values\.\d+\.encoder\.(key|value))",
    R"(past_(key|value)_cross_\d+)",
}};
constexpr std::array<std::string_view, 2> kCrossOutputs{{
    R"(present\.\d+\.encoder\.(key|value))",
    R"(present_(key|value)_cross_\d+)",
}};
constexpr std::string_view kCrossRule = "cross-attention cache (read-only)";

RE2::Options QuietOptions() {
  RE2::Options options;
  options.set_log_errors(false);
  return options;
}

template <size_t N>
std::vector<std::unique_ptr<RE2>> CompileAll(const std::array<std::string_view, N>& patterns) {
  std::vector<std::unique_ptr<RE2>> compiled;
  for (std::string_view pattern : patterns) {
    compiled.push_back(std::make_unique<RE2>(pattern, QuietOptions()));
  }
  return compiled;
}

bool MatchesAny(const std::string& name, const std::vector<std::unique_ptr<RE2>>& patterns) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const auto& pattern) { return RE2::FullMatch(name, *pattern); });
}

bool IsCrossOutput(const std::string& name) {
  static const std::vector<std::unique_ptr<RE2>> patterns = CompileAll(kCrossOutputs);
  return name.find("present") != std::string::npos && MatchesAny(name, patterns);
}

bool IsCrossInput(const std::string& name) {
  static const std::vector<std::unique_ptr<RE2>> patterns = CompileAll(kCrossInputs);
  return name.find("past") != std::string::npos && MatchesAny(name, patterns);
}

struct ConventionMatch {
  std::string in_name;
  std::string_view rule;
};

// The first convention whose rewritten input exists; the cheap "present"/".updated" filter
// keeps a 300k-value graph from running every pattern on every output.
std::optional<ConventionMatch> ConventionInputName(const std::string& out_name,
                                                   const Graph& graph) {
  if (out_name.find("present") == std::string::npos &&
      out_name.find(".updated") == std::string::npos) {
    return std::nullopt;
  }
  if (IsCrossOutput(out_name)) return std::nullopt;
  static const std::vector<std::unique_ptr<RE2>> patterns = [] {
    std::array<std::string_view, kConventions.size()> regexes;
    for (size_t i = 0; i < kConventions.size(); ++i) regexes[i] = kConventions[i].out_regex;
    return CompileAll(regexes);
  }();
  for (size_t i = 0; i < kConventions.size(); ++i) {
    std::string in_name;
    if (!RE2::FullMatch(out_name, *patterns[i]) ||
        !RE2::Extract(out_name, *patterns[i], kConventions[i].in_template, &in_name)) {
      continue;
    }
    if (in_name != out_name && graph.FindValue(in_name) != kNoValue) {
      return ConventionMatch{std::move(in_name), kConventions[i].name};
    }
  }
  return std::nullopt;
}

struct CompiledRule {
  std::unique_ptr<RE2> out_pattern;
  std::string in_template;
};

std::vector<CompiledRule> CompileRules(const std::vector<AliasRule>& rules) {
  std::vector<CompiledRule> compiled;
  for (const AliasRule& rule : rules) {
    RE2::Options options;
    options.set_log_errors(false);
    auto pattern = std::make_unique<RE2>(rule.out_regex, options);
    if (!pattern->ok()) {
      throw Error(ErrorKind::kUsage, "alias '" + rule.out_regex + "=" + rule.in_template +
                                         "': invalid regex: " + pattern->error());
    }
    std::string why;
    if (!pattern->CheckRewriteString(rule.in_template, &why)) {
      throw Error(ErrorKind::kUsage,
                  "alias '" + rule.out_regex + "=" + rule.in_template + "': " + why);
    }
    compiled.push_back({std::move(pattern), rule.in_template});
  }
  return compiled;
}

// The input a user rule names for `out_name`, or nullopt when no rule matches it.
std::optional<std::string> RuleInputName(const std::vector<CompiledRule>& rules,
                                         const std::string& out_name) {
  for (const CompiledRule& rule : rules) {
    std::string in_name;
    if (RE2::FullMatch(out_name, *rule.out_pattern) &&
        RE2::Extract(out_name, *rule.out_pattern, rule.in_template, &in_name)) {
      return in_name;
    }
  }
  return std::nullopt;
}

std::string PairName(const Graph& graph, const ValueAlias& alias) {
  return "alias '" + graph.values[alias.out_value].name + "' -> '" +
         graph.values[alias.in_value].name + "'";
}

void CheckPair(const Graph& graph, const ValueAlias& alias, std::vector<uint8_t>& seen) {
  const Value& out = graph.values[alias.out_value];
  const Value& in = graph.values[alias.in_value];
  if (!out.is_graph_output || out.producer == kNoNode) {
    throw Error(ErrorKind::kUsage,
                PairName(graph, alias) + ": the first must be a graph output produced by a node");
  }
  if (in.producer != kNoNode) {
    throw Error(ErrorKind::kUsage,
                PairName(graph, alias) + ": the second must be a graph input or initializer");
  }
  if (seen[alias.out_value] || seen[alias.in_value]) {
    throw Error(ErrorKind::kUsage, PairName(graph, alias) + ": a value is in two alias pairs");
  }
  seen[alias.out_value] = seen[alias.in_value] = 1;
  // In place is legal only if the writer is the input's last reader (nodes are in model order).
  for (NodeId reader : in.consumers) {
    if (reader > out.producer) {
      throw Error(ErrorKind::kUsage, PairName(graph, alias) + ": node '" +
                                         graph.nodes[reader].name + "' reads the input after '" +
                                         graph.nodes[out.producer].name +
                                         "' overwrites it, so the update cannot be in place");
    }
  }
}

void ReplaceInput(Node& node, ValueId from, ValueId to) {
  for (ValueId& input : node.inputs) {
    if (input == from) input = to;
  }
}

void AddConsumer(Value& value, NodeId node) {
  auto at = std::lower_bound(value.consumers.begin(), value.consumers.end(), node);
  if (at == value.consumers.end() || *at != node) value.consumers.insert(at, node);
}

// ONNX Runtime's attention kernels that can write present into past's buffer (ORT GenAI's
// past_present_share_buffer; the attribute of that name on Attention, MultiHeadAttention and
// DecoderMaskedMultiHeadAttention).
bool IsSharedBufferWriter(const Node& node) {
  static constexpr std::array<std::string_view, 4> kOps{
      {"GroupQueryAttention", "MultiHeadAttention", "DecoderMaskedMultiHeadAttention",
       "Attention"}};
  return std::find(kOps.begin(), kOps.end(), node.op_type) != kOps.end() &&
         (node.domain == "com.microsoft" || node.domain.empty());
}

std::vector<ValueAlias> AliasesOf(const std::vector<FoundAlias>& pairs) {
  std::vector<ValueAlias> aliases;
  aliases.reserve(pairs.size());
  for (const FoundAlias& found : pairs) aliases.push_back(found.alias);
  return aliases;
}

// The bytes one in-place write changes: an append's growth, a shared buffer's new rows, else
// the whole output (an overwrite). `graph` is the model's, before LoopGraph's rewrite.
int64_t WrittenBytes(const Graph& graph, const ValueAlias& alias) {
  const int64_t out_bytes = graph.values[alias.out_value].bytes;
  const int64_t in_bytes = graph.values[alias.in_value].bytes;
  if (out_bytes > in_bytes) return out_bytes - in_bytes;
  const int64_t shared_rows_bytes = SharedBufferWrittenBytes(graph, alias);
  return shared_rows_bytes > 0 ? shared_rows_bytes : out_bytes;
}

}  // namespace

AliasRule ParseAliasRule(const std::string& text) {
  const size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == text.size()) {
    throw Error(ErrorKind::kUsage,
                "--alias '" + text + "': expected OUT=IN (an output regex and an input name)");
  }
  return {text.substr(0, equals), text.substr(equals + 1)};
}

LoopState FindLoopState(const Graph& graph, const std::vector<AliasRule>& user_rules) {
  const std::vector<CompiledRule> rules = CompileRules(user_rules);
  LoopState state;
  for (ValueId out : graph.outputs) {
    const Value& value = graph.values[out];
    if (value.producer == kNoNode) continue;
    std::optional<ConventionMatch> match;
    if (std::optional<std::string> ruled = RuleInputName(rules, value.name)) {
      match = ConventionMatch{std::move(*ruled), "--alias"};
    } else {
      match = ConventionInputName(value.name, graph);
    }
    if (!match) continue;
    const bool by_rule = match->rule == "--alias";
    const ValueId in = graph.FindValue(match->in_name);
    if (in == kNoValue) {
      throw Error(ErrorKind::kUsage, "--alias: output '" + value.name + "' names input '" +
                                         match->in_name + "', which the model does not have");
    }
    if (graph.values[in].producer != kNoNode && !by_rule) continue;
    state.pairs.push_back({{out, in}, std::string(match->rule)});
  }
  std::sort(state.pairs.begin(), state.pairs.end(), [](const FoundAlias& a, const FoundAlias& b) {
    return a.alias.out_value < b.alias.out_value;
  });
  for (FoundAlias& found : state.pairs) {
    if (SharedBufferWrittenBytes(graph, found.alias) > 0) {
      found.rule += ", one shared max_length buffer";
    }
  }
  state.read_only = ReadOnlyLoopState(graph, AliasesOf(state.pairs));
  return state;
}

std::vector<ValueAlias> FindAliases(const Graph& graph, const std::vector<AliasRule>& user_rules) {
  return AliasesOf(FindLoopState(graph, user_rules).pairs);
}

std::vector<ReadOnlyState> ReadOnlyLoopState(const Graph& graph,
                                             const std::vector<ValueAlias>& aliases) {
  std::vector<uint8_t> paired(graph.values.size(), 0);
  for (const ValueAlias& alias : aliases) paired[alias.in_value] = 1;
  std::vector<ReadOnlyState> read_only;
  for (ValueId id : graph.inputs) {
    const Value& value = graph.values[id];
    if (paired[id] || value.is_initializer || value.producer != kNoNode) continue;
    if (value.consumers.empty() || !value.size_known || value.bytes == 0) continue;
    if (IsCrossInput(value.name)) read_only.push_back({id, std::string(kCrossRule)});
  }
  std::sort(read_only.begin(), read_only.end(),
            [](const ReadOnlyState& a, const ReadOnlyState& b) { return a.value < b.value; });
  return read_only;
}

int64_t SharedBufferWrittenBytes(const Graph& graph, const ValueAlias& alias) {
  const Value& out = graph.values[alias.out_value];
  const Value& in = graph.values[alias.in_value];
  if (out.producer == kNoNode) return 0;
  const Node& writer = graph.nodes[out.producer];
  if (!IsSharedBufferWriter(writer) || writer.inputs.empty()) return 0;
  if (out.shape.size() < 4 || out.shape != in.shape || !out.size_known) return 0;
  // The first input is the query or packed input [batch, S, hidden] (ContribOperators.md):
  // S new rows of the cache's L rows, its second-to-last axis ([B, N, L, H], packed
  // [2, B, N, L, H]).
  const Value& query = graph.values[writer.inputs[0]];
  const int64_t buffer_rows = in.shape[in.shape.size() - 2];
  if (query.shape.size() != 3 || buffer_rows <= 0 || query.shape[1] > buffer_rows) return 0;
  return in.bytes / buffer_rows * query.shape[1];
}

Graph LoopGraph(const Graph& graph, const std::vector<ValueAlias>& aliases) {
  std::vector<uint8_t> seen(graph.values.size(), 0);
  for (const ValueAlias& alias : aliases) CheckPair(graph, alias, seen);
  Graph loop = graph;
  for (const ValueAlias& alias : aliases) {
    Value& out = loop.values[alias.out_value];
    Value& in = loop.values[alias.in_value];
    const NodeId writer = out.producer;
    // Readers of the output read the input's buffer, which the writer updates in place.
    for (NodeId reader : out.consumers) {
      ReplaceInput(loop.nodes[reader], alias.out_value, alias.in_value);
      AddConsumer(in, reader);
    }
    Node& writer_node = loop.nodes[writer];
    std::erase(writer_node.outputs, alias.out_value);
    if (std::find(writer_node.inputs.begin(), writer_node.inputs.end(), alias.in_value) ==
        writer_node.inputs.end()) {
      writer_node.inputs.push_back(alias.in_value);
    }
    AddConsumer(in, writer);
    in.written_by = writer;
    in.written_bytes = WrittenBytes(graph, alias);
    in.bytes = std::max(in.bytes, out.bytes);
    in.size_known = in.size_known && out.size_known;
    out.producer = kNoNode;
    out.consumers.clear();
    out.is_graph_output = false;
    out.bytes = 0;
    std::erase(loop.outputs, alias.out_value);
  }
  return loop;
}

std::vector<uint8_t> PersistentValues(const Graph& loop_graph,
                                      const std::vector<ValueAlias>& aliases) {
  std::vector<uint8_t> persistent(loop_graph.values.size(), 0);
  for (size_t id = 0; id < loop_graph.values.size(); ++id) {
    const Value& value = loop_graph.values[id];
    persistent[id] = value.is_initializer && value.size_known && value.bytes > 0;
  }
  for (const ValueAlias& alias : aliases) {
    const Value& value = loop_graph.values[alias.in_value];
    persistent[alias.in_value] = value.size_known && value.bytes > 0;
  }
  for (const ReadOnlyState& state : ReadOnlyLoopState(loop_graph, aliases)) {
    persistent[state.value] = 1;
  }
  return persistent;
}

}  // namespace hyperplan
