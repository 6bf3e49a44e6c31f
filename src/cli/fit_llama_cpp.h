// The llama.cpp flags that realise a fit point's placement (`fit --llama-cpp-flags`): every
// layer on the GPU (`-ngl 999`), and one `-ot` (--override-tensor) whose comma-separated
// `<regex>=CPU` entries keep on the host the weights of each part the plan runs there, with
// `--no-op-offload` so that llama.cpp computes those parts where their weights are instead
// of copying them to the GPU for large batches.
//
// GGUF tensor names are llama.cpp's (src/llama-arch.cpp, LLM_TENSOR_NAMES for LLM_ARCH_LLAMA
// and the architectures sharing its names): a layer's MLP is blk.N.ffn_gate, ffn_up and
// ffn_down (ffn_*_exps and ffn_*_shexp for mixture-of-experts layers), its attention
// blk.N.attn_q, attn_k, attn_v and attn_output, each with ".weight"; the LM head is
// "output.weight", the token embedding "token_embd.weight". llama.cpp matches each pattern
// with std::regex_search against the tensor name and splits the -ot value at ',' (common/
// arg.cpp, "--override-tensor, -ot <tensor name pattern>=<buffer type>,..."), so patterns are
// anchored with '^' and hold no ','. Runs of layers become compact number regexes
// (0-31 -> "[0-9]|[12][0-9]|3[01]"). HF layer N ("layers.N.") is GGUF's blk.N, as llama.cpp's
// converter numbers them.
// Cost: O(layers). Limits: a layer's norms and weights outside the layers that are neither
// the LM head nor the embedding have no part name here and stay where -ngl puts them;
// --no-op-offload needs a llama.cpp from mid-2025 or later.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "schemas/fit.pb.h"

namespace hyperplan::cli {

// "-ngl", "999" and, when some part runs on the host, "-ot", its value, "--no-op-offload".
std::vector<std::string> LlamaCppArgs(const fit::v1::FitPoint& point);

// An alternation matching exactly the decimal numbers in `numbers` (any order, duplicates
// allowed, none negative): runs split at digit counts and at decades, "[0-9]|[12][0-9]|3[01]".
std::string NumberAlternation(std::vector<int32_t> numbers);

// The args as one shell line: an arg of only [A-Za-z0-9_./:=,+-] as is, others in single
// quotes (a quote inside as '\'').
std::string ShellLine(const std::vector<std::string>& args);

}  // namespace hyperplan::cli
