// Profile loading entry points (adapters/profile_yaml.h): file reading, YAML parsing, and the
// one place where problems become an Error. yaml-cpp exceptions are caught here and reported
// like any other problem, with the position yaml-cpp gives. Cost: linear in the file.
#include "hyperplan/adapters/profile_yaml.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "hyperplan/error.h"
#include "hyperplan/nearest_name.h"
#include "hyperplan/text_file.h"
#include "profile/diagnostics.h"
#include "profile/embedded_profiles.h"
#include "profile/sections.h"

namespace hyperplan {

namespace {

constexpr std::string_view kDefaultProfileName = "supernode";

const profile::EmbeddedProfile* FindEmbedded(std::string_view name) {
  for (const profile::EmbeddedProfile& entry : profile::EmbeddedProfiles()) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

// "unknown profile 'h100' (did you mean 'h100-sxm'?); shipped profiles: a100-pcie4, ...".
std::string UnknownProfileMessage(const std::string& name) {
  std::vector<std::string_view> names;
  for (const profile::EmbeddedProfile& entry : profile::EmbeddedProfiles()) {
    names.push_back(entry.name);
  }
  // A shortened name ("h100") says more than a near spelling of another ("gh200").
  std::optional<size_t> nearest = OnlyNameContaining(name, names);
  if (!nearest) nearest = NearestName(name, names);
  return fmt::format(
      "unknown profile '{}'{}; shipped profiles: {} (a file path needs a '/' or a .yaml "
      "extension, e.g. ./{}.yaml)",
      name, nearest ? fmt::format(" (did you mean '{}'?)", names[*nearest]) : std::string(),
      fmt::join(names, ", "), name);
}

// Where the second YAML document of `yaml_text` starts, when it has content (a trailing "---"
// yields an empty one, which is fine). Reads at most two documents through yaml-cpp's event
// parser: YAML::LoadAll never returns on some malformed inputs (yaml-cpp 0.7 keeps yielding
// documents after a NUL byte until memory runs out; found by the profile-yaml fuzzer).
// Throws YAML::Exception on a syntax error in either document.
class SecondDocumentFinder final : public YAML::EventHandler {
 public:
  std::optional<YAML::Mark> Find(const std::string& yaml_text) {
    std::istringstream stream(yaml_text);
    YAML::Parser parser(stream);
    for (documents_ = 0; documents_ < 2 && parser.HandleNextDocument(*this); ++documents_) {
    }
    return content_;
  }

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { Content(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                const std::string&) override {
    Content(mark);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    Content(mark);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    Content(mark);
  }
  void OnMapEnd() override {}

 private:
  void Content(const YAML::Mark& mark) {
    if (documents_ == 1 && !content_) content_ = mark;
  }

  int documents_ = 0;
  std::optional<YAML::Mark> content_;
};

}  // namespace

HardwareProfile ParseProfileYaml(const std::string& yaml_text, const std::string& source_name) {
  profile::Diagnostics diagnostics(source_name);
  HardwareProfile profile;
  try {
    if (const std::optional<YAML::Mark> second = SecondDocumentFinder().Find(yaml_text)) {
      diagnostics.Report(*second, "a profile is one YAML document; this is a second one");
    }
    // YAML::Load reads the first document only.
    const profile::Field root{"", YAML::Load(yaml_text), YAML::Mark()};
    profile = profile::ReadProfileDocument(root, diagnostics);
  } catch (const YAML::Exception& error) {
    diagnostics.Report(error.mark, fmt::format("YAML syntax error: {}", error.msg));
  }
  if (!diagnostics.empty()) throw Error(ErrorKind::kProfile, diagnostics.Format());
  profile.source = source_name;
  return profile;
}

HardwareProfile LoadProfileFile(const std::string& path) {
  return ParseProfileYaml(ReadTextFile(path), path);
}

HardwareProfile DefaultProfile() {
  // Parsed once: it cannot change while the process runs, and regexes are costly to compile.
  static const HardwareProfile kDefault = [] {
    const profile::EmbeddedProfile* entry = FindEmbedded(kDefaultProfileName);
    if (entry == nullptr) {
      throw Error(ErrorKind::kInternal, "configs/supernode.yaml was not compiled in");
    }
    return ParseProfileYaml(std::string(entry->yaml),
                            fmt::format("embedded default ({})", entry->file));
  }();
  return kDefault;
}

std::vector<std::string> ShippedProfileNames() {
  std::vector<std::string> names;
  for (const profile::EmbeddedProfile& entry : profile::EmbeddedProfiles()) {
    names.emplace_back(entry.name);
  }
  return names;
}

HardwareProfile ShippedProfile(const std::string& name) {
  const profile::EmbeddedProfile* entry = FindEmbedded(name);
  if (entry == nullptr) throw Error(ErrorKind::kUsage, UnknownProfileMessage(name));
  return ParseProfileYaml(std::string(entry->yaml), fmt::format("embedded ({})", entry->file));
}

bool IsProfilePath(const std::string& name_or_path) {
  auto ends_with = [&name_or_path](std::string_view suffix) {
    return name_or_path.size() >= suffix.size() &&
           name_or_path.compare(name_or_path.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return name_or_path.find('/') != std::string::npos || ends_with(".yaml") || ends_with(".yml");
}

HardwareProfile LoadProfile(const std::string& name_or_path) {
  return IsProfilePath(name_or_path) ? LoadProfileFile(name_or_path) : ShippedProfile(name_or_path);
}

}  // namespace hyperplan
