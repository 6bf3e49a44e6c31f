// The generated workloads benchmarks run on: which generator preset, form, op set and layer
// count, and the dims that bind their symbolic shapes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hyperplan::bench {

struct Workload {
  std::string label;              // as printed in tables
  std::string preset;             // hyperplan-gen preset
  std::string form;               // prefill | decode | train
  int layers = 0;                 // 0: the preset's own
  std::vector<std::string> dims;  // --dim arguments
  std::string ops = "standard";   // standard | contrib
  std::string weights = {};       // --weights (empty: the preset's dtype)
  // The generator's own defaults (fused attention, logits of the last position), as a user
  // runs it; false: the eager, every-position form the issue-5 tables measured.
  bool deployed_form = false;
  // Only these profile files (empty: every shipped profile): the host-compute rows (issue 30)
  // are about one desktop and one workstation.
  std::vector<std::string> profiles = {};
  // Issue 31's MoE rows: a Hugging Face config.json under the source tree, written with
  // --from-hf-config instead of `preset` (which then only names the cached file); the MoE form
  // (--moe-form; empty: the generator's default, dense); and a tier capacity set on the
  // profiles (`tier` empty: as shipped), its source beside the row in workloads.cc.
  std::string hf_config = {};
  std::string dtype = {};  // --dtype, for a config.json without torch_dtype (GPT-OSS)
  std::string moe_form = {};
  std::string tier = {};
  int64_t tier_capacity_bytes = 0;
  // Training steps: --train-attention (empty: the generator's default, recompute, as PyTorch
  // SDPA and FlashAttention train; "stash": eager attention keeping the probabilities).
  std::string train_attention = {};
};

// Real-scale models from the foundation issue: Llama-3 8B/70B/405B and the DeepSeek-V3-sized
// MoE.
std::vector<Workload> RealScaleWorkloads();

// One model stacked to growing depth, for the nodes-vs-time series.
std::vector<Workload> ScaleSeriesWorkloads();

// The contenders comparison (issue 5): Llama-3-8B prefill 8k and 32k, Llama-3-70B decode with
// a 32k KV cache at batch 1 and 16, Llama-3-405B prefill, the DeepSeek-V3-sized MoE, and a
// Llama-3-8B training step; the host-compute rows (issue 30): Llama-3-70B int4 decode with
// a 4k KV cache at batch 1 on rtx-4090, and bf16 on rtx-4090-xeon-2s; on rtx-4090-xeon-2s,
// Llama-3-8B decode with a 32k KV cache at batch 8 (FlexGen's case) and the Llama-3-8B
// training step (ZeRO-Offload's), also with the attention probabilities stashed (eager); and
// the MoE rows (issue 31): DeepSeek-V3 int4 (QMoE) decode
// on rtx-4090-xeon-2s and h100-sxm, DeepSeek-V3 fp8 and Qwen3-235B-A22B int4 on
// rtx-4090-xeon-2s, Mixtral-8x7B bf16 and GPT-OSS-120B MXFP4 on rtx-4090 with 128 GB of DDR.
// `quick`: the two smallest.
std::vector<Workload> CompareWorkloads(bool quick);

// argv for hyperplan-gen writing `workload` to `path`.
std::vector<std::string> GeneratorArgs(const std::string& generator_path, const Workload& workload,
                                       const std::string& path);

// The cached model file name for `workload` (without the directory).
std::string ModelFileName(const Workload& workload);

}  // namespace hyperplan::bench
