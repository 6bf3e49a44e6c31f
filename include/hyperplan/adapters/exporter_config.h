// Exporter configs beside a model: ONNX Runtime GenAI's genai_config.json (its model builder
// writes one next to model.onnx) and Hugging Face's config.json (Optimum copies it next to its
// exports). Read when present, to bind the dims exporters name so that `hyperplan plan
// model.onnx` plans without --dim; a --dim always wins (the caller binds these only where the
// user bound nothing).
//
// What a user plans is the loop's iteration: one decode step at the longest context the model
// is run with, the step whose KV cache is largest. So the dims are
//   batch_size = 1, sequence_length = decoder_sequence_length = 1 (one new token),
//   total_sequence_length = L, past_sequence_length = past_decoder_sequence_length = L - 1
//   (total = past + sequence), encoder_sequence_length[_out] = the encoder's length,
// with L the context length: genai_config's search.max_length, else model.context_length;
// config.json's max_position_embeddings, else n_positions (GPT-2), else max_target_positions
// (Whisper's decoder); the encoder's from max_source_positions (Whisper). With genai_config's
// search.past_present_share_buffer the runtime feeds past and present as one buffer of L rows,
// so past_sequence_length = L too.
// genai_config.json wins over config.json when both are there. The KV input names the config
// gives (model.decoder.inputs.past_key_names, "past_key_values.%d.key") and its KV heads are
// reported as notes, for `-v`.
// Cost: one small JSON file read and parsed. Limits: a field of the wrong type is an error
// naming the file and field (Error(kModel)); unknown fields are ignored; a config.json that is
// not a Hugging Face model config (no model_type) is ignored.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace hyperplan {

struct ExporterConfig {
  std::string path;            // the file read; empty when there is none
  int64_t context_length = 0;  // L above, tokens; 0 when the config gives none
  std::map<std::string, int64_t, std::less<>> dims;  // to bind where --dim does not
  std::vector<std::string> notes;                    // what was read and bound, for -v
};

// The config beside `model_path` (genai_config.json, else config.json), or an empty one.
ExporterConfig ReadExporterConfig(const std::string& model_path);

// Parses `text` as the config file `path` names ("genai_config.json" or "config.json" by its
// file name). Throws Error(kModel) naming the path and field for malformed JSON or a field of
// the wrong type.
ExporterConfig ParseExporterConfig(const std::string& path, const std::string& text);

}  // namespace hyperplan
