// The fidelity table's data (tools/bench/fidelity.yaml): published measurements of LLM decode,
// prefill and training steps, each with its model, machine (a shipped profile), batch,
// context, precision, value with unit and source, and the hyperplan-gen flags that build the
// model hyperplan plans for it. Reading checks every field, so a bad row is one line naming
// the file, the row and the field.
// Cost: one YAML parse of a few kilobytes. Limits: the profile is checked against the shipped
// names and the config path is not opened here (the generator reports a missing one).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hyperplan::bench {

struct FidelityRow {
  std::string id;         // unique, the table's first column
  std::string model;      // the published model's name
  std::string hf_config;  // relative to the source tree
  std::string form;       // decode | prefill | train
  std::string profile;    // a shipped profile's name
  int64_t batch = 0;
  int64_t prompt = 0;  // prompt tokens; prefill and train: the step's sequence
  int64_t past = 0;    // decode: KV-cache tokens the step attends to
  std::string precision;
  std::string today_precision;               // what generator_today expresses (default: precision)
  std::vector<std::string> generator;        // flags expressing the precision (tried first)
  std::vector<std::string> generator_today;  // flags today's generator takes
  std::string budget;                        // "" or a `plan --budget` size
  double published_value = 0;
  std::string published_unit;  // tokens/s | ms | s
  std::string source;
  std::string method;
  std::string gap;  // what the model lacks, for a row outside the band ("" if none given)
};

// Every row of `path`. Throws std::runtime_error "PATH: row 'ID': field 'NAME': problem".
std::vector<FidelityRow> LoadFidelityRows(const std::string& path);

// The --dim bindings of the row's step: decode batch, sequence=1, past_sequence; prefill and
// train batch and sequence=prompt.
std::vector<std::string> FidelityDims(const FidelityRow& row);

// New tokens a step produces (decode) or processes (prefill, train): what tokens/s counts.
int64_t TokensPerStep(const FidelityRow& row);

// The row's context as the table prints it: "past 105", "prompt 2048", "seq 4096".
std::string ContextLabel(const FidelityRow& row);

}  // namespace hyperplan::bench
