// Attention pattern: attention spelled out op by op, found and costed as one fused kernel.
//
// Many exports (torch.onnx, Optimum, hyperplan-gen's standard-op form) spell attention out:
// the Concat of past and new K/V that makes the present, repeat_kv (Transpose, Unsqueeze,
// Expand, Reshape) widening grouped K/V to every query head, MatMul(Q, K^T), a scale (Mul or
// Div), a mask (Add or Where), Softmax (perhaps between Casts to float32) and MatMul(P, V).
// Costed op by op, each op reads and writes the scores or the repeated cache; a runtime that
// fuses attention (FlashAttention, PyTorch's scaled_dot_product_attention, ONNX Runtime's
// attention fusion) runs the block as one kernel that reads the cache once at its own size.
//
// FindAttentionBlocks recognises a block by structure: a Softmax fed by a MatMul through
// scale, mask and Cast ops, whose output feeds (through Casts) the first input of a second
// MatMul. The first MatMul's K^T and the second's V come from their roots through views,
// Transpose, Expand, Cast, scalar scales and the Concat that makes the present; the query
// through Cast and scalar scales. On loop graphs (loop.h) the present's Concat no longer feeds
// the chain, which reads the past buffer instead; the Concat, that buffer's writer
// (Value::written_by), joins the block. A block is refused when one of its members' outputs
// is read outside it or is a graph output (the present, which the cache keeps, and the
// context are the exceptions) or when a size it needs is unknown: it is then costed op by op.
//
// Cost: O(nodes + uses); each Softmax walks chains of at most a fixed number of nodes.
// Limits: with more than one query, a mask that varies along the query axis is taken as
// causal (the decoder's; a sliding window attends fewer keys than counted); a mask that does
// not is taken as padding and every pair is counted. The fused kernel's memory is not modelled:
// the plan still holds the scores and the repeated cache each op would write (only node times
// change).
#pragma once

#include <string>
#include <vector>

#include "hyperplan/cost.h"
#include "hyperplan/dtype.h"
#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"

namespace hyperplan {

struct AttentionBlock {
  NodeId context_matmul = kNoNode;  // MatMul(P, V): carries the fused kernel's cost
  std::vector<NodeId> members;      // every node of the block, ascending, the anchor included
  ValueId query = kNoValue;         // what the kernel reads as Q (before any scale or Cast)
  // K and V at the cache's own size (before repeat_kv): the present, or on loop graphs the
  // past buffer the append writes (which then has the present's size).
  ValueId key = kNoValue;
  ValueId value = kNoValue;
  ValueId context = kNoValue;  // the second MatMul's output
  int64_t appended_bytes = 0;  // new K and V rows written into the cache (0 without a Concat)
  int64_t batch_heads = 0;     // batch x query heads: the scores' leading dims
  int64_t query_length = 0;
  int64_t key_length = 0;
  int64_t head_dim = 0;
  bool causal = false;
  DType dtype = DType::kUndefined;  // what the scores MatMul computes in (ComputeDType)
  // 2 * 2 * head_dim per attended (query, key) pair per head: Q K^T and P V.
  int64_t flops = 0;
  // query + key + value + context + appended_bytes: each read or written once.
  int64_t bytes = 0;
};

// The spelled-out attention blocks of `graph`, ordered by their Softmax; no node is in two.
std::vector<AttentionBlock> FindAttentionBlocks(const Graph& graph);

// Each block as one kernel: its anchor gets the roofline cost of the block's FLOPs and bytes
// (one launch); every other member costs no FLOPs, no bytes and no launch, and takes 1 ns (a
// step of zero length would break the replay's memory accounting). `costs` is by NodeId.
void CostAsFusedKernels(const HardwareProfile& profile, const std::vector<AttentionBlock>& blocks,
                        std::vector<NodeCost>& costs);

// The assumption the costs make, for the plan summary: "32 spelled-out attention blocks costed
// as the fused kernel (profile fuses attention)", or "... costed op by op (profile does not
// fuse attention)"; "" when the graph spells none out.
std::string DescribeAttentionCosting(const Graph& graph, const HardwareProfile& profile);

}  // namespace hyperplan
