/* Fused scaled dot-product attention (graph/lower/opt/attention.c).
 *
 * The chain JAX exports for softmax(Q K^T * scale) V, f32:
 *   S  = dot_general(Q, K)  one contracting and one free dim each, any
 *                           number of batch dims: S = [batch.., Lq, Lk]
 *   S2 = multiply(S, broadcast(c)) | multiply(broadcast(c), S) |
 *        divide(S, broadcast(c)) | S       c a rank-0 value
 *   m  = reduce max of S2 over its last dim
 *   m2 = maximum(broadcast(f), m) | maximum(m, broadcast(f)) | m
 *   E  = exponential(subtract(S2, broadcast(m2)))
 *   l  = reduce add of E over its last dim
 *   P  = divide(E, broadcast(l))
 *   O  = dot_general(V, P) | dot_general(P, V)  contracting P's last dim
 *   [transpose(O)]
 * (broadcasts: chains of broadcast_in_dim putting the row value along the
 * last dim), every intermediate used only inside the chain. It becomes
 * one task running kernels/libs/attention_f32.h into the last value's
 * slot (a transpose becomes output strides). The group (fusion.h) is
 * found at its last op (head = that op) before the dot+transpose and
 * epilogue groups can take its pieces. HLX_NO_ATTENTION_FUSION=1 (or
 * fusion off) turns it off. */
#ifndef HLX_GRAPH_LOWER_ATTENTION_H_
#define HLX_GRAPH_LOWER_ATTENTION_H_

#include "graph/lower/ctx.h"

struct hlx_fusion_t;

/* hlx_fusion_epilogue_fn (ctx: the const hlx_lower_ctx_t*): the attention
 * group ending at op `head`, else hlx_lower_epilogue_match's group. */
int32_t hlx_lower_attention_or_epilogue_match(const void* ctx,
                                              const hlx_block_t* b,
                                              int32_t head,
                                              const int32_t* uses,
                                              const int32_t* taken,
                                              int32_t* members, int32_t max);

/* Emits group g as the fused attention task when it is an attention
 * group; *done = false (nothing emitted) otherwise. */
hlx_status_t hlx_lower_attention_group(hlx_lower_ctx_t* c,
                                       const hlx_block_t* blk,
                                       const struct hlx_fusion_t* f,
                                       int32_t g, bool* done) HLX_MUST_USE;

#endif /* HLX_GRAPH_LOWER_ATTENTION_H_ */
