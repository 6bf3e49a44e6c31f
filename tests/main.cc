// The Catch2 test runner's entry point; every other file in tests/ holds test cases.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
