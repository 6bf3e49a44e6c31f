// A model's context window (see fit_window.h).
#include "fit_window.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <charconv>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string_view>

#include "hyperplan/text_file.h"

namespace hyperplan::cli {
namespace {

constexpr std::string_view kMetadataKeys[] = {"max_position_embeddings",
                                              "hyperplan.max_position_embeddings"};

std::optional<int64_t> PositiveWhole(std::string_view text) {
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value <= 0) return std::nullopt;
  return value;
}

std::optional<ContextWindow> FromMetadata(const ParsedOnnxModel& model,
                                          const std::string& model_path) {
  for (std::string_view key : kMetadataKeys) {
    const std::optional<std::string> text = model.MetadataProp(key);
    if (!text) continue;
    if (const std::optional<int64_t> tokens = PositiveWhole(*text)) {
      return ContextWindow{*tokens, fmt::format("metadata_props {}", key)};
    }
    spdlog::warn("{}: metadata_props {} is '{}', not a positive whole number; ignored", model_path,
                 key, *text);
  }
  return std::nullopt;
}

// `document` at the JSON pointer `field`, when it is there at all; a warning when it is there
// but not a positive whole number.
std::optional<int64_t> JsonTokens(const nlohmann::json& document, const std::string& field,
                                  const std::string& path) {
  const nlohmann::json::json_pointer pointer(field);
  if (!document.is_object() || !document.contains(pointer)) return std::nullopt;
  const nlohmann::json& value = document.at(pointer);
  if (value.is_number_integer() && value.get<int64_t>() > 0) return value.get<int64_t>();
  spdlog::warn("{}: {} is {}, not a positive whole number; ignored", path, field, value.dump());
  return std::nullopt;
}

// The first of `fields` (JSON pointers) in the file `name` beside the model.
std::optional<ContextWindow> FromSidecar(const std::string& model_path, const std::string& name,
                                         std::initializer_list<const char*> fields) {
  const std::filesystem::path path = std::filesystem::path(model_path).parent_path() / name;
  std::error_code missing;
  if (!std::filesystem::is_regular_file(path, missing)) return std::nullopt;
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(ReadTextFile(path.string()));
  } catch (const std::exception& error) {
    spdlog::warn("{}: not read for the context window ({}); ignored", path.string(), error.what());
    return std::nullopt;
  }
  for (const char* field : fields) {
    if (const std::optional<int64_t> tokens = JsonTokens(document, field, path.string())) {
      return ContextWindow{*tokens, fmt::format("{} {}", name, std::string(field).substr(1))};
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<ContextWindow> ModelContextWindow(const ParsedOnnxModel& model,
                                                const std::string& model_path) {
  if (std::optional<ContextWindow> window = FromMetadata(model, model_path)) return window;
  if (std::optional<ContextWindow> window =
          FromSidecar(model_path, "config.json",
                      {"/max_position_embeddings", "/text_config/max_position_embeddings"})) {
    return window;
  }
  return FromSidecar(model_path, "genai_config.json", {"/model/context_length"});
}

KvCacheShapes KvCacheShapesOf(const Graph& graph) {
  KvCacheShapes shapes;
  for (const Value& value : graph.values) {
    if (value.value_class == ValueClass::kKvCache) shapes[value.name] = value.shape;
  }
  return shapes;
}

bool LengthensContext(const KvCacheShapes& before, const KvCacheShapes& after) {
  for (const auto& [name, shape] : before) {
    const auto other = after.find(name);
    if (other == after.end() || other->second.size() != shape.size()) continue;
    for (size_t axis = 1; axis < shape.size(); ++axis) {
      if (shape[axis] != other->second[axis]) return true;
    }
  }
  return false;
}

}  // namespace hyperplan::cli
