// The values every attention layer reads, made once per model from the shapes of input_ids and
// (decode) past_key_values.0.key, never from their contents:
//   standard ops: the causal mask [sequence, total_sequence], 0 where key j may be seen by query
//   i (j <= past_sequence + i) and the element type's lowest finite value elsewhere, built as
//   Trilu(ConstantOfShape([sequence, total]), k = past_sequence + 1, upper) so that ONNX shape
//   inference with data propagation knows its shape once dims are bound;
//   contrib ops: GroupQueryAttention's seqlens_k ([batch] int32, total - 1 for every row) and
//   total_sequence_length (int32 scalar).
// Cost: about a dozen small nodes per model. Limits: no padding mask: every row of the batch has
// the same past and new length, which is what the model's inputs can express.
#pragma once

#include "decoder_context.h"

namespace hyperplan::gen {

// Sets ctx.causal_mask and, with a sliding window, ctx.window_mask (standard), or ctx.seqlens_k
// and ctx.total_sequence_length (contrib).
void MakeAttentionInputs(DecoderContext& ctx);

}  // namespace hyperplan::gen
