// Shipped profiles by name (--hw h100-sxm): every configs/*.yaml is compiled in, equal to its
// file, and an unknown name is a usage error with a suggestion and the list.
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "hyperplan/adapters/profile_yaml.h"
#include "hyperplan/error.h"
#include "hyperplan/nearest_name.h"

namespace hyperplan {
namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

std::string ConfigsDir() { return std::string(HYPERPLAN_SOURCE_DIR) + "/configs"; }

Error NameError(const std::string& name) {
  try {
    ShippedProfile(name);
  } catch (const Error& error) {
    return error;
  }
  FAIL("'" << name << "' was accepted");
  return Error(ErrorKind::kInternal, "");
}

TEST_CASE("Every configs/*.yaml is compiled in under its file's stem", "[profile][shipped]") {
  std::set<std::string> stems;
  for (const auto& entry : std::filesystem::directory_iterator(ConfigsDir())) {
    if (entry.path().extension() == ".yaml") stems.insert(entry.path().stem().string());
  }
  const std::vector<std::string> names = ShippedProfileNames();
  CHECK(std::set<std::string>(names.begin(), names.end()) == stems);
  CHECK(std::is_sorted(names.begin(), names.end()));
  // The eight profiles of the first two changes, and the fidelity table's A100 SXM.
  for (const char* expected : {"a100-pcie4", "gh200", "h100-sxm", "supernode", "rtx-4090", "l40s",
                               "h200-sxm", "mi300x", "a100-sxm"}) {
    CHECK(stems.count(expected) == 1);
  }
}

TEST_CASE("A shipped profile by name equals its file", "[profile][shipped]") {
  for (const std::string& name : ShippedProfileNames()) {
    INFO(name);
    const HardwareProfile embedded = ShippedProfile(name);
    const HardwareProfile file = LoadProfileFile(ConfigsDir() + "/" + name + ".yaml");
    CHECK(embedded.source == "embedded (configs/" + name + ".yaml)");
    CHECK(embedded.name == file.name);
    CHECK(embedded.description == file.description);
    REQUIRE(embedded.tiers.size() == file.tiers.size());
    for (size_t i = 0; i < file.tiers.size(); ++i) {
      CHECK(embedded.tiers[i].capacity_bytes == file.tiers[i].capacity_bytes);
    }
    REQUIRE(embedded.links.size() == file.links.size());
    for (size_t i = 0; i < file.links.size(); ++i) {
      CHECK(embedded.links[i].bandwidth_bytes_per_s == file.links[i].bandwidth_bytes_per_s);
    }
    CHECK(embedded.compute.peak_flops_per_s == file.compute.peak_flops_per_s);
    CHECK(embedded.sources.size() == file.sources.size());
  }
  // A spot figure the file says, so a broken embedding cannot pass by matching a broken
  // reader: h100-sxm's 80GB of HBM.
  const HardwareProfile h100 = ShippedProfile("h100-sxm");
  CHECK(h100.tiers[h100.device_tier].capacity_bytes == 80'000'000'000);
}

TEST_CASE("The --hw value: a name without '/' or .yaml is a shipped profile, else a file",
          "[profile][shipped]") {
  CHECK_FALSE(IsProfilePath("h100-sxm"));
  CHECK_FALSE(IsProfilePath("mi300x"));
  CHECK(IsProfilePath("configs/h100-sxm.yaml"));
  CHECK(IsProfilePath("./h100-sxm"));
  CHECK(IsProfilePath("mine.yaml"));
  CHECK(IsProfilePath("mine.yml"));
  CHECK(LoadProfile("l40s").source == "embedded (configs/l40s.yaml)");
  const std::string path = ConfigsDir() + "/l40s.yaml";
  CHECK(LoadProfile(path).source == path);
  // A path that does not exist is still read as a file: exit 3, not "unknown profile".
  try {
    LoadProfile("no/such/profile");
    FAIL("accepted");
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::kInputFile);
  }
}

TEST_CASE("An unknown profile name suggests one and lists them all", "[profile][shipped]") {
  const Error shortened = NameError("h100");
  CHECK(shortened.kind() == ErrorKind::kUsage);
  // "h100" is inside one name only; it is two edits from "gh200", which must not win.
  CHECK_THAT(shortened.what(), StartsWith("unknown profile 'h100' (did you mean 'h100-sxm'?); "
                                          "shipped profiles: a100-pcie4, a100-sxm, gh200, "));
  CHECK_THAT(shortened.what(), Contains("rtx-4090, rtx-4090-xeon-2s, supernode"));
  CHECK_THAT(shortened.what(), Contains("./h100.yaml"));
  CHECK_THAT(NameError("rtx4090").what(), StartsWith("unknown profile 'rtx4090' (did you mean "
                                                     "'rtx-4090'?)"));
  // Nothing near: no suggestion, still the list.
  CHECK_THAT(NameError("tpu-v5").what(),
             StartsWith("unknown profile 'tpu-v5'; shipped profiles: "));
}

TEST_CASE("NearestName and OnlyNameContaining", "[profile][shipped]") {
  const std::vector<std::string_view> names = {"capacity", "device", "name"};
  CHECK(EditDistance("capcity", "capacity") == 1);  // one insertion
  CHECK(EditDistance("", "abc") == 3);
  CHECK(NearestName("capcity", names) == std::optional<size_t>(0));  // "capacity"
  CHECK(NearestName("nme", names) == std::optional<size_t>(2));      // "name"
  CHECK_FALSE(NearestName("colour", names));                         // 5+ edits from each
  const std::vector<std::string_view> profiles = {"h100-sxm", "h200-sxm", "gh200"};
  CHECK(OnlyNameContaining("h100", profiles) == std::optional<size_t>(0));
  CHECK_FALSE(OnlyNameContaining("sxm", profiles));  // two contain it
  CHECK_FALSE(OnlyNameContaining("", profiles));
}

}  // namespace
}  // namespace hyperplan
