// Fuzz entry: a hardware profile's YAML text, parsed and checked as `--hw FILE` reads it.
// Cost per input: one YAML parse and the profile's consistency checks.
#include "fuzz_support.h"
#include "hyperplan/adapters/profile_yaml.h"

int FuzzOne(const uint8_t* data, size_t size) {
  return hyperplan::fuzz::RunGuarded([&] {
    hyperplan::ParseProfileYaml(std::string(hyperplan::fuzz::AsText(data, size)), "fuzz.yaml");
  });
}
