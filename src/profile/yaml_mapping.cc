// Structure of the document: fields, mappings checked against a schema section, sequences
// (see yaml_fields.h).
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "hyperplan/nearest_name.h"
#include "profile/yaml_fields.h"

namespace hyperplan::profile {
namespace {

// The known key within two edits of `key` ("capcity", "bandwith"), or nullptr.
const KeySpec* NearestKey(std::string_view key, std::span<const KeySpec> keys) {
  std::vector<std::string_view> names;
  for (const KeySpec& spec : keys) names.push_back(spec.name);
  const std::optional<size_t> nearest = NearestName(key, names);
  return nearest ? &keys[*nearest] : nullptr;
}

std::string UnknownKeyProblem(std::string_view key, const KeySpec* nearest,
                              std::span<const KeySpec> keys) {
  if (nearest != nullptr) {
    return fmt::format("unknown key '{}'; did you mean '{}'?", key, nearest->name);
  }
  std::string known;
  for (const KeySpec& spec : keys) {
    if (!known.empty()) known += ", ";
    known += spec.name;
  }
  return fmt::format("unknown key '{}'; expected one of {}", key, known);
}

}  // namespace

YAML::Mark Field::mark() const { return value.IsNull() ? key_mark : value.Mark(); }

std::string Field::Blame(std::string_view problem) const {
  if (path.empty()) return std::string(problem);
  return fmt::format("{}: {}", path, problem);
}

std::string ChildPath(std::string_view parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  return fmt::format("{}.{}", parent, key);
}

std::string_view DescribeKind(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Sequence:
      return "a sequence";
    case YAML::NodeType::Scalar:
      return "a scalar";
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return "nothing";
  }
  return "nothing";
}

void ReportWrongKind(const Field& field, std::string_view what, Diagnostics& diagnostics) {
  diagnostics.Report(field.mark(), field.Blame(fmt::format("expected {}, found {}", what,
                                                           DescribeKind(field.value))));
}

std::optional<std::vector<Entry>> ReadEntries(const Field& field, Diagnostics& diagnostics) {
  if (!field.value.IsMap()) {
    ReportWrongKind(field, "a mapping", diagnostics);
    return std::nullopt;
  }
  std::vector<Entry> entries;
  // Copies, not references: yaml-cpp's iterator hands out a temporary pair.
  for (const auto& pair : field.value) {
    const YAML::Node key = pair.first;
    const YAML::Node value = pair.second;
    if (!key.IsScalar()) {
      diagnostics.Report(key.Mark(), field.Blame(fmt::format("keys must be plain strings, found {}",
                                                             DescribeKind(key))));
      continue;
    }
    const std::string name = key.Scalar();
    auto first = std::find_if(entries.begin(), entries.end(),
                              [&](const Entry& entry) { return entry.key == name; });
    if (first != entries.end()) {
      diagnostics.Report(key.Mark(),
                         field.Blame(fmt::format("key '{}' repeated (first at line {})", name,
                                                 first->field.key_mark.line + 1)));
      continue;
    }
    entries.push_back({name, Field{ChildPath(field.path, name), value, key.Mark()}});
  }
  return entries;
}

std::optional<Mapping> Mapping::Read(const Field& field, std::span<const KeySpec> keys,
                                     Diagnostics& diagnostics) {
  std::optional<std::vector<Entry>> entries = ReadEntries(field, diagnostics);
  if (!entries) return std::nullopt;
  Mapping mapping;
  std::vector<std::string_view> suggested;
  for (Entry& entry : *entries) {
    const bool known = std::any_of(keys.begin(), keys.end(),
                                   [&](const KeySpec& spec) { return spec.name == entry.key; });
    if (!known) {
      const KeySpec* nearest = NearestKey(entry.key, keys);
      if (nearest != nullptr) suggested.push_back(nearest->name);
      diagnostics.Report(entry.field.key_mark,
                         field.Blame(UnknownKeyProblem(entry.key, nearest, keys)));
      continue;
    }
    mapping.entries_.push_back(std::move(entry));
  }
  for (const KeySpec& spec : keys) {
    // A misspelt key was reported above with this name as its fix; saying it is missing too
    // would count one mistake twice.
    const bool was_suggested =
        std::find(suggested.begin(), suggested.end(), spec.name) != suggested.end();
    if (spec.required && !was_suggested && mapping.Find(spec.name) == nullptr) {
      diagnostics.Report(field.mark(),
                         field.Blame(fmt::format("missing required key '{}'", spec.name)));
    }
  }
  return mapping;
}

const Field* Mapping::Find(std::string_view key) const {
  for (const Entry& entry : entries_) {
    if (entry.key == key) return &entry.field;
  }
  return nullptr;
}

std::optional<std::vector<Field>> ReadSequence(const Field& field, Diagnostics& diagnostics) {
  if (!field.value.IsSequence()) {
    ReportWrongKind(field, "a sequence", diagnostics);
    return std::nullopt;
  }
  std::vector<Field> items;
  size_t index = 0;
  for (const YAML::Node& item : field.value) {
    // An empty item's own mark is the next token's; the sequence's is the nearer guess.
    const YAML::Mark item_mark = item.IsNull() ? field.mark() : item.Mark();
    items.push_back(Field{fmt::format("{}[{}]", field.path, index), item, item_mark});
    ++index;
  }
  return items;
}

}  // namespace hyperplan::profile
