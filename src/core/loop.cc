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

// One exporter convention: an output name prefix that becomes an input name prefix, with the
// rest of the name kept (present.3.key -> past_key_values.3.key).
struct PrefixConvention {
  std::string_view out_prefix;
  std::string_view in_prefix;
};

// Hugging Face Optimum / transformers.onnx / onnxruntime-genai, GPT-2 style and
// decoder_with_past exports, as in classify.cc; the first whose input exists wins.
constexpr std::array<PrefixConvention, 3> kPresentToPast{{
    {"present.", "past_key_values."},
    {"present", "past_key_values"},
    {"present", "past"},
}};

// Training exports: "<param>.updated[.<moment>]" is the next iteration's "<param>[.<moment>]".
constexpr std::string_view kUpdatedMarker = ".updated";

std::optional<std::string> ConventionInputName(std::string_view out_name, const Graph& graph) {
  for (const PrefixConvention& convention : kPresentToPast) {
    if (out_name.substr(0, convention.out_prefix.size()) != convention.out_prefix) continue;
    std::string in_name(convention.in_prefix);
    in_name += out_name.substr(convention.out_prefix.size());
    if (graph.FindValue(in_name) != kNoValue) return in_name;
  }
  const size_t marker = out_name.find(kUpdatedMarker);
  if (marker != std::string_view::npos) {
    std::string in_name(out_name.substr(0, marker));
    in_name += out_name.substr(marker + kUpdatedMarker.size());
    if (graph.FindValue(in_name) != kNoValue) return in_name;
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

}  // namespace

AliasRule ParseAliasRule(const std::string& text) {
  const size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == text.size()) {
    throw Error(ErrorKind::kUsage,
                "--alias '" + text + "': expected OUT=IN (an output regex and an input name)");
  }
  return {text.substr(0, equals), text.substr(equals + 1)};
}

std::vector<ValueAlias> FindAliases(const Graph& graph, const std::vector<AliasRule>& user_rules) {
  const std::vector<CompiledRule> rules = CompileRules(user_rules);
  std::vector<ValueAlias> aliases;
  for (ValueId out : graph.outputs) {
    const Value& value = graph.values[out];
    if (value.producer == kNoNode) continue;
    std::optional<std::string> in_name = RuleInputName(rules, value.name);
    const bool by_rule = in_name.has_value();
    if (!by_rule) in_name = ConventionInputName(value.name, graph);
    if (!in_name) continue;
    const ValueId in = graph.FindValue(*in_name);
    if (in == kNoValue) {
      throw Error(ErrorKind::kUsage, "--alias: output '" + value.name + "' names input '" +
                                         *in_name + "', which the model does not have");
    }
    if (graph.values[in].producer != kNoNode && !by_rule) continue;
    aliases.push_back({out, in});
  }
  std::sort(aliases.begin(), aliases.end(),
            [](const ValueAlias& a, const ValueAlias& b) { return a.out_value < b.out_value; });
  return aliases;
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
    in.written_bytes = out.bytes > in.bytes ? out.bytes - in.bytes : out.bytes;
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
  return persistent;
}

}  // namespace hyperplan
