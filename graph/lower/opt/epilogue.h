/* Post-op epilogues: a convolution or dot_general followed by elementwise
 * ops on its result that oneDNN can apply before writing it
 * (graph/lower/opt/epilogue.c).
 *
 * The chain starts at the library op's result and follows single users:
 * add / subtract (the chain value as lhs) / multiply with a second operand
 * that is a broadcast_in_dim (chains of them) of a value varying only
 * along the output feature dimension (or a single value), or a tensor of
 * the result's shape (e.g. a residual); relu written as maximum with a
 * broadcast zero constant, or as a call of a function doing only that;
 * logistic and tanh. Every intermediate value has that one user, so the
 * library op writes only the chain's last value. The group (fusion.h,
 * head = the library op) is emitted at its last member as one task. */
#ifndef HLX_GRAPH_LOWER_EPILOGUE_H_
#define HLX_GRAPH_LOWER_EPILOGUE_H_

#include "graph/lower/ctx.h"
#include "kernels/libs/onednn.h"

typedef struct hlx_epilogue_step_t {
  hlx_onednn_post_op_t op;
  const hlx_value_t* operand; /* binary steps: the value read, else NULL */
} hlx_epilogue_step_t;

typedef struct hlx_epilogue_t {
  int32_t num_steps;
  hlx_epilogue_step_t steps[HLX_ONEDNN_MAX_POST_OPS];
  const hlx_op_t* last; /* its result 0 is what the fused task writes */
  char name[192];       /* task name: "stablehlo.convolution+epilogue(..)" */
} hlx_epilogue_t;

/* Off with HLX_NO_EPILOGUE=1 (A/B checks) or when fusion is off. */
bool hlx_lower_epilogue_enabled(const hlx_lower_ctx_t* c);

/* hlx_fusion_epilogue_fn; ctx is the const hlx_lower_ctx_t*. */
int32_t hlx_lower_epilogue_match(const void* ctx, const hlx_block_t* b,
                                 int32_t head, const int32_t* uses,
                                 const int32_t* taken, int32_t* members,
                                 int32_t max);

/* Emits epilogue group g of blk as one task; *done = false (nothing
 * emitted) when the library declines, and the caller lowers the members
 * one by one. A residual (sum) operand is flagged HLX_TASK_OUT0_OVER_IN,
 * so the result may take its slot when it dies there (no copy into dst);
 * HLX_NO_SUM_IN_PLACE=1 turns that off. */
struct hlx_fusion_t;
hlx_status_t hlx_lower_epilogue_group(hlx_lower_ctx_t* c,
                                      const hlx_block_t* blk,
                                      const struct hlx_fusion_t* f, int32_t g,
                                      bool* done) HLX_MUST_USE;

/* graph/lower/conv.c: the convolution `op` with the epilogue on oneDNN;
 * *done = false when it does not qualify. */
hlx_status_t hlx_lower_conv_epilogue(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                     const hlx_epilogue_t* ep,
                                     bool* done) HLX_MUST_USE;

/* Conv+BN folding (graph/lower/opt/conv_fold.c): the leading steps that add,
 * subtract or multiply by per-feature (or single) values compose into
 * y = conv * scale[o] + shift[o], a convolution with weights scaled per
 * output feature and a bias. _count: how many leading steps of ep fold,
 * with operands that are plan constants or (params) values computed only
 * from reusable parameters and constants by elementwise/shape ops (batch
 * norm's mean, rsqrt(var + eps) * gamma, beta); 0 with HLX_NO_CONV_FOLD=1.
 * _constant: a step operand's plan-constant data or NULL. _compose: scale
 * and shift (o entries) from the n steps' operand values, in f32 in the
 * graph's order. _weights: dst[i] = w[i] * scale[o(i)] for row-major
 * weights whose output feature has stride stride_o (dst may be w). */
int32_t hlx_conv_fold_count(hlx_lower_ctx_t* c, const hlx_epilogue_t* ep,
                            bool params);
const float* hlx_conv_fold_constant(hlx_lower_ctx_t* c,
                                    const hlx_epilogue_step_t* st);
void hlx_conv_fold_compose(const hlx_onednn_post_op_t* ops,
                           const float* const* vals, int32_t n, int64_t o,
                           float* scale, float* shift);
void hlx_conv_fold_weights(const float* w, size_t n, int64_t stride_o,
                           int64_t o, const float* scale, float* dst);

/* graph/lower/dot.c: the same for a dot_general; the feature is the
 * result's last dim. */
hlx_status_t hlx_lower_dot_epilogue(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                    const hlx_epilogue_t* ep,
                                    bool* done) HLX_MUST_USE;

/* The epilogue of group g (head a convolution or dot), as emitted; false
 * when it is not an epilogue group. */
bool hlx_lower_epilogue_of(const hlx_lower_ctx_t* c, const hlx_block_t* b,
                           const struct hlx_fusion_t* f, int32_t g,
                           hlx_epilogue_t* ep);

/* Blocked activations between convolutions (graph/lower/opt/conv_layout.c).
 * driver.c brackets each block with begin/end, calls _operands before
 * lowering op i (or group root i) and _terminator before reading the
 * results: they give a logical copy to every reader that cannot take a
 * blocked slot. */
typedef struct hlx_act_layout_t hlx_act_layout_t;
typedef struct hlx_act_scope_t {
  hlx_act_layout_t* act;
  unsigned char* planned;
  bool own_planned;
} hlx_act_scope_t;
bool hlx_lower_act_enabled(void); /* HLX_NO_CONV_BLOCKED=1: off */
hlx_status_t hlx_lower_act_begin(hlx_lower_ctx_t* c, const hlx_block_t* b,
                                 const struct hlx_fusion_t* fu,
                                 hlx_act_scope_t* scope) HLX_MUST_USE;
void hlx_lower_act_end(hlx_lower_ctx_t* c, const hlx_act_scope_t* scope);
hlx_status_t hlx_lower_act_operands(hlx_lower_ctx_t* c, const hlx_block_t* b,
                                    const struct hlx_fusion_t* fu,
                                    int32_t i) HLX_MUST_USE;
hlx_status_t hlx_lower_act_terminator(hlx_lower_ctx_t* c,
                                      const hlx_op_t* term) HLX_MUST_USE;
/* Epilogue group g fell back to its members: unblock what they read. */
hlx_status_t hlx_lower_act_decline(hlx_lower_ctx_t* c, const hlx_block_t* b,
                                   const struct hlx_fusion_t* fu,
                                   int32_t g) HLX_MUST_USE;
/* For graph/lower/conv.c: whether v should be written blocked; the
 * convolution whose blocked output v's slot holds (NULL: logical);
 * whether reader's input (or output, !as_input) has producer's output dim
 * order; marking v's slot blocked; a logical copy of v for what follows. */
bool hlx_lower_act_planned(const hlx_lower_ctx_t* c, const hlx_value_t* v);
const hlx_op_t* hlx_lower_act_blocked(const hlx_lower_ctx_t* c,
                                      const hlx_value_t* v);
bool hlx_lower_act_matches(const hlx_op_t* producer, const hlx_op_t* reader,
                           bool as_input);
hlx_status_t hlx_lower_act_set_blocked(hlx_lower_ctx_t* c,
                                       const hlx_value_t* v,
                                       const hlx_op_t* conv) HLX_MUST_USE;
hlx_status_t hlx_lower_act_unblock(hlx_lower_ctx_t* c,
                                   const hlx_value_t* v) HLX_MUST_USE;

#endif /* HLX_GRAPH_LOWER_EPILOGUE_H_ */
