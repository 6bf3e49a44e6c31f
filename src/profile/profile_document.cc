// The top level of a profile document: its keys and the order its sections are read in
// (see sections.h). Cost: linear in the document.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "profile/sections.h"

namespace hyperplan::profile {
namespace {

constexpr std::array<KeySpec, 9> kDocumentKeys = {{
    {"name", true},
    {"description", false},
    {"sources", false},
    {"tiers", true},
    {"links", false},
    {"compute", true},
    {"host_compute", false},
    {"placement", false},
    {"classes", false},
}};

// Optional sections may be left empty ("classes:" with every rule commented out): an empty
// value means the same as an absent key.
const Field* NonEmpty(const Field* field) {
  return field != nullptr && !field->value.IsNull() ? field : nullptr;
}

// sources: tag -> citation, in document order; informational, so only the types are checked.
std::vector<ProfileSource> ReadSources(const Field& field, Diagnostics& diagnostics) {
  std::vector<ProfileSource> sources;
  std::optional<std::vector<Entry>> entries = ReadEntries(field, diagnostics);
  if (!entries) return sources;
  for (const Entry& entry : *entries) {
    if (std::optional<std::string> citation = ReadString(entry.field, diagnostics)) {
      sources.push_back({entry.key, *citation});
    }
  }
  return sources;
}

}  // namespace

std::string TierNameList(const HardwareProfile& profile) {
  std::string names;
  for (const Tier& tier : profile.tiers) {
    if (!names.empty()) names += ", ";
    names += tier.name;
  }
  return names.empty() ? std::string("(none)") : names;
}

HardwareProfile ReadProfileDocument(const Field& root, Diagnostics& diagnostics) {
  HardwareProfile profile;
  if (root.value.IsNull()) {
    diagnostics.Report(root.mark(),
                       "the profile is empty; expected a mapping with name, tiers and compute");
    return profile;
  }
  std::optional<Mapping> document = Mapping::Read(root, kDocumentKeys, diagnostics);
  if (!document) return profile;

  if (const Field* field = document->Find("name")) {
    if (std::optional<std::string> name = ReadString(*field, diagnostics)) {
      if (name->empty()) diagnostics.Report(field->mark(), field->Blame("must not be empty"));
      profile.name = *name;
    }
  }
  if (const Field* field = document->Find("description")) {
    // Informational only; checked for type so a misplaced mapping is not silently ignored.
    if (std::optional<std::string> description = ReadString(*field, diagnostics)) {
      profile.description = *description;
    }
  }
  if (const Field* field = NonEmpty(document->Find("sources"))) {
    profile.sources = ReadSources(*field, diagnostics);
  }

  bool topology_complete = false;
  if (const Field* field = document->Find("tiers")) {
    topology_complete = ReadTiers(*field, profile, diagnostics);
  }
  if (const Field* field = NonEmpty(document->Find("links"))) {
    topology_complete = ReadLinks(*field, profile, diagnostics) && topology_complete;
  }
  if (const Field* field = document->Find("compute")) {
    ReadCompute(*field, profile.compute, diagnostics);
  }
  ReadHostCompute(NonEmpty(document->Find("host_compute")), profile, diagnostics);
  ReadPlacement(NonEmpty(document->Find("placement")), topology_complete, profile, diagnostics);
  if (const Field* field = NonEmpty(document->Find("classes"))) {
    ReadClasses(*field, profile.class_rules, diagnostics);
  }
  return profile;
}

}  // namespace hyperplan::profile
