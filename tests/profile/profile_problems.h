// Test support for the profile tests: the message a profile the parser must refuse gets.
#pragma once

#include <catch2/catch.hpp>
#include <string>

#include "hyperplan/adapters/profile_yaml.h"
#include "hyperplan/error.h"

namespace hyperplan {

// The message of the profile Error that parsing `yaml` must throw.
inline std::string Problems(const std::string& yaml) {
  try {
    ParseProfileYaml(yaml, "bad.yaml");
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::kProfile);
    return error.what();
  }
  FAIL("the profile was accepted");
  return "";
}

}  // namespace hyperplan
