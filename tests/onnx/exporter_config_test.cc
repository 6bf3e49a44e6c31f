// genai_config.json and config.json beside a model (exporter_config.h): the dims they bind,
// what wins, and the one-line errors for malformed fields.
#include "hyperplan/adapters/exporter_config.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "hyperplan/error.h"

namespace hyperplan {
namespace {

using Dims = std::map<std::string, int64_t, std::less<>>;

// As ORT GenAI's model builder writes it (fields trimmed to those read).
constexpr const char* kGenAi = R"({
  "model": {
    "context_length": 4096,
    "decoder": {
      "num_key_value_heads": 8,
      "inputs": {"past_key_names": "past_key_values.%d.key",
                 "past_value_names": "past_key_values.%d.value"}
    }
  },
  "search": {"max_length": 2048, "past_present_share_buffer": false}
})";

TEST_CASE("genai_config.json binds one decode step at search.max_length", "[onnx][config]") {
  const ExporterConfig config = ParseExporterConfig("m/genai_config.json", kGenAi);
  // search.max_length (2048) wins over model.context_length (4096): the runtime allocates it.
  CHECK(config.context_length == 2048);
  // total = past + sequence: 2047 + 1.
  CHECK(config.dims == Dims{{"batch_size", 1},
                            {"decoder_sequence_length", 1},
                            {"past_decoder_sequence_length", 2047},
                            {"past_sequence_length", 2047},
                            {"sequence_length", 1},
                            {"total_sequence_length", 2048}});
  REQUIRE(config.notes.size() == 3);
  CHECK(config.notes[0] == "m/genai_config.json: context length 2048 (from search.max_length)");
  CHECK(config.notes[1] ==
        "m/genai_config.json: KV inputs past_key_values.%d.key / past_key_values.%d.value, 8 KV "
        "heads");
}

TEST_CASE("a shared past/present buffer makes past the whole max_length", "[onnx][config]") {
  const ExporterConfig config = ParseExporterConfig(
      "genai_config.json",
      R"({"model": {"context_length": 512}, "search": {"past_present_share_buffer": true}})");
  // One buffer of L = 512 rows is both past and present.
  CHECK(config.dims.at("past_sequence_length") == 512);
  CHECK(config.dims.at("total_sequence_length") == 512);
}

TEST_CASE("Optimum's config.json: the decoder's and the encoder's lengths", "[onnx][config]") {
  // Whisper's: max_target_positions 448 (decoder), max_source_positions 1500 (encoder).
  const ExporterConfig whisper = ParseExporterConfig(
      "w/config.json",
      R"({"model_type": "whisper", "max_target_positions": 448, "max_source_positions": 1500})");
  CHECK(whisper.context_length == 448);
  CHECK(whisper.dims.at("past_decoder_sequence_length") == 447);
  CHECK(whisper.dims.at("encoder_sequence_length_out") == 1500);
  CHECK(whisper.dims.at("encoder_sequence_length") == 1500);
  // A llama's max_position_embeddings; GPT-2's n_positions.
  CHECK(ParseExporterConfig("config.json",
                            R"({"model_type": "llama", "max_position_embeddings": 8192})")
            .dims.at("total_sequence_length") == 8192);
  CHECK(ParseExporterConfig("config.json", R"({"model_type": "gpt2", "n_positions": 1024})")
            .dims.at("past_sequence_length") == 1023);
  // Not a model's config (no model_type): nothing bound.
  CHECK(ParseExporterConfig("config.json", R"({"max_position_embeddings": 8})").dims.empty());
}

TEST_CASE("a malformed config is one line naming the file and field", "[onnx][config]") {
  CHECK_THROWS_WITH(
      ParseExporterConfig("d/genai_config.json", R"({"model": {"context_length": "4k"}})"),
      "d/genai_config.json: field 'model.context_length': expected a positive "
      "integer, got \"4k\"");
  CHECK_THROWS_WITH(
      ParseExporterConfig("d/genai_config.json", R"({"search": {"past_present_share_buffer": 1}})"),
      "d/genai_config.json: field 'search.past_present_share_buffer': expected true or false, "
      "got 1");
  try {
    ParseExporterConfig("d/config.json", "{");
    FAIL("parsed");
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::kModel);
    CHECK(std::string(error.what()).rfind("d/config.json: not JSON: ", 0) == 0);
  }
}

TEST_CASE("the config beside the model: genai_config.json first, none is empty", "[onnx][config]") {
  const std::filesystem::path directory =
      std::filesystem::temp_directory_path() / "hyperplan_exporter_config_test";
  std::filesystem::remove_all(directory);
  std::filesystem::create_directories(directory);
  const std::string model = (directory / "model.onnx").string();
  CHECK(ReadExporterConfig(model).path.empty());
  std::ofstream(directory / "config.json")
      << R"({"model_type": "llama", "max_position_embeddings": 64})";
  CHECK(ReadExporterConfig(model).context_length == 64);
  std::ofstream(directory / "genai_config.json") << kGenAi;
  CHECK(ReadExporterConfig(model).context_length == 2048);
  CHECK(ReadExporterConfig(model).path == (directory / "genai_config.json").string());
  std::filesystem::remove_all(directory);
}

}  // namespace
}  // namespace hyperplan
