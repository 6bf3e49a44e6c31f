// hyperplan-bench: benchmark commands whose tables go into README.md.
//   hyperplan-bench inspect [--series]   import + inspect vs bare protobuf parse
//   hyperplan-bench parse FILE           (internal) the bare parse, run as a child process
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "inspect_bench.h"
#include "parse_only.h"

int main(int argc, char** argv) {
  CLI::App app{"hyperplan-bench: benchmark tables for README.md"};
  app.require_subcommand(1);

  std::string parse_path;
  CLI::App* parse = app.add_subcommand("parse", "parse an ONNX file with protobuf and exit");
  parse->add_option("file", parse_path)->required();

  hyperplan::bench::InspectBenchOptions inspect_options;
  inspect_options.models_dir = "build/bench-models";
  CLI::App* inspect = app.add_subcommand("inspect", "import + inspect vs bare protobuf parse");
  inspect->add_option("--models-dir", inspect_options.models_dir, "generated model cache");
  inspect->add_option("--repeat", inspect_options.repeat, "runs per command (best kept)")
      ->check(CLI::Range(1, 100));
  inspect->add_flag("--series", inspect_options.series, "add the nodes-vs-time series");

  CLI11_PARSE(app, argc, argv);
  try {
    if (*parse) return hyperplan::bench::ParseOnly(parse_path);
    return hyperplan::bench::RunInspectBench(inspect_options);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "hyperplan-bench: %s\n", error.what());
    return 1;
  }
}
