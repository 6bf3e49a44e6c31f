// The context window of a model, and whether the dim `fit --grow` moves is a context length.
//
// A search for the longest context that fits stops at the model's own window unless asked to
// go past it: an answer of 4M tokens on a model trained for 128k answers no one's question.
// ModelContextWindow reads, in order: the model's metadata_props (`max_position_embeddings`,
// or `hyperplan.max_position_embeddings`, which hyperplan-gen writes), then `config.json`
// beside the model (Hugging Face: `max_position_embeddings`, or `text_config`'s), then
// `genai_config.json` (ONNX Runtime GenAI: `model.context_length`); the first that says wins.
// A sidecar file that is not JSON, or whose field is not a positive whole number, is ignored
// with a warning naming the file and field: the window only caps a search. A dim is a context
// length when, between two imports, it changes a kv cache value's shape (class kv_cache) on an
// axis other than the first: the first is the batch in every layout exporters write
// ([batch, kv_heads, sequence, head_dim], [batch, sequence, latent]), and a larger batch grows
// the cache without lengthening the context.
// Cost: reading the metadata and at most two small files. Limits: the window caps the moved
// dim itself, so a decode's past_sequence may reach the window, one more than the positions a
// decode step at that length uses; extend ModelContextWindow for other exporters' keys.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hyperplan/adapters/onnx_import.h"
#include "hyperplan/graph.h"

namespace hyperplan::cli {

struct ContextWindow {
  int64_t tokens = 0;
  std::string source;  // "metadata_props max_position_embeddings", "config.json ...", ...
};

std::optional<ContextWindow> ModelContextWindow(const ParsedOnnxModel& model,
                                                const std::string& model_path);

// The shape of each kv cache value (class kv_cache), by name.
using KvCacheShapes = std::map<std::string, std::vector<int64_t>, std::less<>>;
KvCacheShapes KvCacheShapesOf(const Graph& graph);

// True when a value of both differs on an axis past the first (see above).
bool LengthensContext(const KvCacheShapes& before, const KvCacheShapes& after);

}  // namespace hyperplan::cli
