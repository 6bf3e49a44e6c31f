// genai_config.json and config.json beside a model (see exporter_config.h).
#include "hyperplan/adapters/exporter_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string_view>
#include <utility>

#include "hyperplan/error.h"

namespace hyperplan {
namespace {

using nlohmann::json;

constexpr std::string_view kGenAiConfig = "genai_config.json";
constexpr std::string_view kHfConfig = "config.json";

// The object at `dotted` ("model.decoder"), or nullptr when a step is missing.
const json* Find(const json& root, std::string_view dotted) {
  const json* at = &root;
  size_t start = 0;
  while (start <= dotted.size()) {
    const size_t dot = std::min(dotted.find('.', start), dotted.size());
    const std::string key(dotted.substr(start, dot - start));
    if (!at->is_object() || !at->contains(key)) return nullptr;
    at = &(*at)[key];
    start = dot + 1;
  }
  return at;
}

std::optional<int64_t> PositiveInt(const std::string& path, const json& root,
                                   std::string_view dotted) {
  const json* field = Find(root, dotted);
  if (field == nullptr || field->is_null()) return std::nullopt;
  if (!field->is_number_integer() || field->get<int64_t>() <= 0) {
    throw Error(ErrorKind::kModel,
                fmt::format("{}: field '{}': expected a positive integer, got {}", path, dotted,
                            field->dump()));
  }
  return field->get<int64_t>();
}

std::optional<bool> Bool(const std::string& path, const json& root, std::string_view dotted) {
  const json* field = Find(root, dotted);
  if (field == nullptr || field->is_null()) return std::nullopt;
  if (!field->is_boolean()) {
    throw Error(ErrorKind::kModel, fmt::format("{}: field '{}': expected true or false, got {}",
                                               path, dotted, field->dump()));
  }
  return field->get<bool>();
}

std::string Text(const json& root, std::string_view dotted) {
  const json* field = Find(root, dotted);
  return field != nullptr && field->is_string() ? field->get<std::string>() : std::string();
}

// The first of `fields` the config has, with the field's name.
std::optional<std::pair<int64_t, std::string_view>> FirstOf(
    const std::string& path, const json& root, std::initializer_list<std::string_view> fields) {
  for (std::string_view field : fields) {
    if (std::optional<int64_t> value = PositiveInt(path, root, field)) {
      return std::make_pair(*value, field);
    }
  }
  return std::nullopt;
}

// One decode step at context length L (exporter_config.h): the dims exporters name.
void BindDecodeStep(ExporterConfig& config, int64_t context_length, bool shared_buffer) {
  config.context_length = context_length;
  const int64_t past = shared_buffer ? context_length : context_length - 1;
  config.dims = {{"batch_size", 1},
                 {"sequence_length", 1},
                 {"decoder_sequence_length", 1},
                 {"total_sequence_length", context_length},
                 {"past_sequence_length", past},
                 {"past_decoder_sequence_length", past}};
}

std::string DimsText(const ExporterConfig& config) {
  std::string text;
  for (const auto& [name, value] : config.dims) {
    text += fmt::format("{}{}={}", text.empty() ? "" : " ", name, value);
  }
  return text;
}

void ReadGenAi(const std::string& path, const json& root, ExporterConfig& config) {
  const auto length = FirstOf(path, root, {"search.max_length", "model.context_length"});
  const bool shared = Bool(path, root, "search.past_present_share_buffer").value_or(false);
  if (length) {
    BindDecodeStep(config, length->first, shared);
    config.notes.push_back(fmt::format(
        "{}: context length {} (from {}){}", path, length->first, length->second,
        shared ? "; past and present share one max_length buffer (past_present_share_buffer)"
               : ""));
  }
  const std::string past_keys = Text(root, "model.decoder.inputs.past_key_names");
  const std::string past_values = Text(root, "model.decoder.inputs.past_value_names");
  const std::optional<int64_t> kv_heads =
      PositiveInt(path, root, "model.decoder.num_key_value_heads");
  if (!past_keys.empty() || kv_heads) {
    config.notes.push_back(fmt::format(
        "{}: KV inputs {} / {}, {} KV heads", path, past_keys.empty() ? "?" : past_keys,
        past_values.empty() ? "?" : past_values, kv_heads ? std::to_string(*kv_heads) : "?"));
  }
}

void ReadHf(const std::string& path, const json& root, ExporterConfig& config) {
  if (!root.is_object() || !root.contains("model_type")) return;  // not a model's config
  const auto length =
      FirstOf(path, root, {"max_position_embeddings", "n_positions", "max_target_positions"});
  if (length) {
    BindDecodeStep(config, length->first, /*shared_buffer=*/false);
    config.notes.push_back(fmt::format("{}: {} context length {} (from {})", path,
                                       Text(root, "model_type"), length->first, length->second));
  }
  if (const std::optional<int64_t> encoder = PositiveInt(path, root, "max_source_positions")) {
    config.dims["encoder_sequence_length"] = *encoder;
    config.dims["encoder_sequence_length_out"] = *encoder;
  }
}

std::optional<std::string> ReadIfPresent(const std::filesystem::path& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return std::nullopt;
  std::ifstream file(path, std::ios::binary);
  if (!file) throw Error(ErrorKind::kInputFile, path.string() + ": cannot be read");
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace

ExporterConfig ParseExporterConfig(const std::string& path, const std::string& text) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& error) {
    throw Error(ErrorKind::kModel, fmt::format("{}: not JSON: {}", path, error.what()));
  }
  ExporterConfig config;
  config.path = path;
  const bool genai = std::filesystem::path(path).filename() == kGenAiConfig;
  if (genai) {
    ReadGenAi(path, root, config);
  } else {
    ReadHf(path, root, config);
  }
  if (!config.dims.empty()) {
    config.notes.push_back(
        fmt::format("{}: binds {} where no --dim does (one decode step at the context length)",
                    path, DimsText(config)));
  }
  return config;
}

ExporterConfig ReadExporterConfig(const std::string& model_path) {
  const std::filesystem::path directory = std::filesystem::path(model_path).parent_path();
  for (std::string_view name : {kGenAiConfig, kHfConfig}) {
    const std::filesystem::path path = directory / name;
    if (std::optional<std::string> text = ReadIfPresent(path)) {
      ExporterConfig config = ParseExporterConfig(path.string(), *text);
      if (!config.dims.empty() || name == kGenAiConfig) return config;
    }
  }
  return {};
}

}  // namespace hyperplan
