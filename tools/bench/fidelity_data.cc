// Reading tools/bench/fidelity.yaml (see fidelity_data.h).
#include "fidelity_data.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "hyperplan/adapters/profile_yaml.h"

namespace hyperplan::bench {
namespace {

const std::set<std::string> kForms = {"decode", "prefill", "train"};
const std::set<std::string> kUnits = {"tokens/s", "ms", "s"};
const std::set<std::string> kPrecisions = {"bf16", "fp16", "int8", "int4", "fp8"};

// Names the file, row and field in every error it raises.
class RowReader {
 public:
  RowReader(const std::string& path, const YAML::Node& node, size_t index)
      : path_(path), node_(node), id_(fmt::format("#{}", index + 1)) {}

  [[noreturn]] void Fail(const std::string& field, const std::string& problem) const {
    throw std::runtime_error(
        fmt::format("{}: row '{}': field '{}': {}", path_, id_, field, problem));
  }

  std::string Text(const std::string& field, bool required = true) {
    const YAML::Node value = node_[field];
    if (!value) {
      if (required) Fail(field, "missing");
      return "";
    }
    if (!value.IsScalar() || value.Scalar().empty()) Fail(field, "must be a non-empty text");
    if (field == "id") id_ = value.Scalar();
    return value.Scalar();
  }

  std::string OneOf(const std::string& field, const std::set<std::string>& allowed) {
    const std::string value = Text(field);
    if (allowed.count(value) == 0) {
      Fail(field, fmt::format("'{}' is not one of {}", value, Joined(allowed)));
    }
    return value;
  }

  int64_t Count(const std::string& field, bool required) {
    const YAML::Node value = node_[field];
    if (!value) {
      if (required) Fail(field, "missing");
      return 0;
    }
    int64_t count = 0;
    if (!YAML::convert<int64_t>::decode(value, count) || count < 1) {
      Fail(field, "must be a positive integer");
    }
    return count;
  }

  std::vector<std::string> Flags(const std::string& field) {
    const YAML::Node value = node_[field];
    if (!value || !value.IsSequence()) Fail(field, "must be a list of generator flags");
    std::vector<std::string> flags;
    for (const YAML::Node& flag : value) flags.push_back(flag.as<std::string>());
    return flags;
  }

  void Published(FidelityRow& row) {
    const YAML::Node value = node_["published"];
    if (!value || !value.IsMap()) Fail("published", "must be {value: NUMBER, unit: UNIT}");
    if (!YAML::convert<double>::decode(value["value"], row.published_value) ||
        !(row.published_value > 0)) {
      Fail("published.value", "must be a positive number");
    }
    row.published_unit = value["unit"] ? value["unit"].as<std::string>() : "";
    if (kUnits.count(row.published_unit) == 0) {
      Fail("published.unit",
           fmt::format("'{}' is not one of {}", row.published_unit, Joined(kUnits)));
    }
  }

 private:
  static std::string Joined(const std::set<std::string>& values) {
    std::string text;
    for (const std::string& value : values) text += (text.empty() ? "" : ", ") + value;
    return text;
  }

  std::string path_;
  YAML::Node node_;
  std::string id_;
};

FidelityRow ReadRow(RowReader& reader, const std::vector<std::string>& shipped) {
  FidelityRow row;
  row.id = reader.Text("id");
  row.model = reader.Text("model");
  row.hf_config = reader.Text("hf_config");
  row.form = reader.OneOf("form", kForms);
  row.profile = reader.Text("profile");
  if (std::find(shipped.begin(), shipped.end(), row.profile) == shipped.end()) {
    reader.Fail("profile", fmt::format("'{}' is not a shipped profile (configs/)", row.profile));
  }
  row.batch = reader.Count("batch", true);
  row.prompt = reader.Count("prompt", true);
  row.past = reader.Count("past", row.form == "decode");
  row.precision = reader.OneOf("precision", kPrecisions);
  row.today_precision = reader.Text("today_precision", false).empty()
                            ? row.precision
                            : reader.OneOf("today_precision", kPrecisions);
  row.generator = reader.Flags("generator");
  row.generator_today = reader.Flags("generator_today");
  row.budget = reader.Text("budget", false);
  reader.Published(row);
  row.source = reader.Text("source");
  row.method = reader.Text("method");
  row.gap = reader.Text("gap", false);
  return row;
}

}  // namespace

std::vector<FidelityRow> LoadFidelityRows(const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& error) {
    throw std::runtime_error(fmt::format("{}: {}", path, error.what()));
  }
  if (!root["rows"] || !root["rows"].IsSequence()) {
    throw std::runtime_error(path + ": field 'rows': must be a list of measurements");
  }
  const std::vector<std::string> shipped = ShippedProfileNames();
  std::vector<FidelityRow> rows;
  std::set<std::string> ids;
  for (size_t i = 0; i < root["rows"].size(); ++i) {
    RowReader reader(path, root["rows"][i], i);
    rows.push_back(ReadRow(reader, shipped));
    if (!ids.insert(rows.back().id).second) reader.Fail("id", "used by an earlier row");
  }
  return rows;
}

std::vector<std::string> FidelityDims(const FidelityRow& row) {
  const std::string batch = fmt::format("batch={}", row.batch);
  if (row.form == "decode") {
    return {batch, "sequence=1", fmt::format("past_sequence={}", row.past)};
  }
  return {batch, fmt::format("sequence={}", row.prompt)};
}

int64_t TokensPerStep(const FidelityRow& row) {
  return row.form == "decode" ? row.batch : row.batch * row.prompt;
}

std::string ContextLabel(const FidelityRow& row) {
  if (row.form == "decode") return fmt::format("past {}", row.past);
  if (row.form == "prefill") return fmt::format("prompt {}", row.prompt);
  return fmt::format("seq {}", row.prompt);
}

}  // namespace hyperplan::bench
