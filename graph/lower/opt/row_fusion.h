/* Row-local fusion (graph/lower/opt/row_fusion.c, kernels/row_fused.h).
 *
 * A row group is a set of ops of one block whose output row r depends only
 * on row r of their operands, over the rows of the root's shape F (rows =
 * F without its last dim, row length = F's last dim): elementwise ops,
 * broadcast_in_dim of scalars, of per-row values (F's leading dims, size-1
 * dims anywhere) and of vectors along the row, reductions over the last
 * dim, and func.call of functions made only of those (and splat
 * constants). It ends in an op with F's shape, contains a reduction, and,
 * like an elementwise group, every member's value but the root's is used
 * only inside it. It runs as one task over blocks of rows
 * (hlx_row_fused_run), reading its inputs once and writing its output
 * once: layer norm, softmax and log_softmax in one pass over memory.
 *
 * Groups are found with the epilogue groups (hlx_fusion_epilogue_fn, last
 * root first) so they take precedence over elementwise groups.
 * HLX_NO_ROW_FUSION=1 (or fusion off) turns them off. */
#ifndef HLX_GRAPH_LOWER_ROW_FUSION_H_
#define HLX_GRAPH_LOWER_ROW_FUSION_H_

#include "graph/lower/ctx.h"
#include "kernels/fused_elementwise.h"

struct hlx_fusion_t;

/* hlx_fusion_epilogue_fn (ctx: the const hlx_lower_ctx_t*): the attention
 * or epilogue group at `head`, else the row group rooted there. */
int32_t hlx_lower_group_match(const void* ctx, const hlx_block_t* b,
                              int32_t head, const int32_t* uses,
                              const int32_t* taken, int32_t* members,
                              int32_t max);

/* Emits group g as one row-fused task when it is a row group; *done =
 * false (nothing emitted) otherwise. */
hlx_status_t hlx_lower_row_group(hlx_lower_ctx_t* c, const hlx_block_t* blk,
                                 const struct hlx_fusion_t* f, int32_t g,
                                 bool* done) HLX_MUST_USE;

/* Shared with graph/lower/opt/fusion.c. The combiner and row length of a
 * reduce over trailing dims that the fused kernels compute. */
bool hlx_lower_fusion_reduce_params(const hlx_op_t* op, hlx_reduce_op_t* rop,
                                    size_t* row);
/* Whether v is a constant whose elements are all equal. */
bool hlx_lower_splat_constant(const hlx_value_t* v);
/* The kernel step (operands and dst unset) of a non-broadcast fusible op;
 * false when no kernel serves its dtypes or attributes. */
bool hlx_lower_fused_step_of(const hlx_op_t* op, hlx_fused_step_t* s);

#endif /* HLX_GRAPH_LOWER_ROW_FUSION_H_ */
