/* Shared by graph/lower*.c: the lowering context and its helpers. */
#ifndef HLX_GRAPH_LOWER_INTERNAL_H_
#define HLX_GRAPH_LOWER_INTERNAL_H_

#include "graph/ir/attr.h"
#include "graph/lower/lower.h"

/* The buffer slots holding one value: one for a tensor or token, the
 * flattened leaves for a tuple. n < 0: not available in this plan. */
typedef struct hlx_value_slots_t {
  int32_t n;
  int32_t* slots;
} hlx_value_slots_t;

typedef struct hlx_lower_ctx_t {
  hlx_lowered_module_t* lm;
  const hlx_func_t* func;
  hlx_plan_t* plan;
  hlx_value_slots_t* vmap; /* indexed by value id (func->num_values) */
  /* Calls inlined around this context: the context of the caller whose
   * call is being inlined (NULL at a function's top level), and how deep. */
  const struct hlx_lower_ctx_t* inline_parent;
  int32_t inline_depth;
  /* Values of func's body that something needs, by id (graph/lower/opt/dce.c);
   * NULL: everything is kept. */
  const unsigned char* needed;
  /* Slots of the entry's reusable parameters (hlx_lower_options_t) when
   * this context emits into the entry function's top-level plan (also
   * while inlining calls into it); NULL elsewhere (regions, other
   * functions). */
  const int32_t* reusable_slots;
  int32_t num_reusable_slots;
  /* Blocked activations of this plan (graph/lower/opt/conv_layout.c; shared
   * with calls inlined into it), or NULL. */
  struct hlx_act_layout_t* act;
  /* Common-subexpression elimination (graph/lower/opt/cse.c): the plan's value
   * table (shared with calls inlined into it) and the value numbers of
   * func's values; both NULL when CSE is off. */
  struct hlx_cse_t* cse;
  int32_t* vn;
} hlx_lower_ctx_t;

/* Whether `slot` holds a reusable parameter of the entry (see above). */
bool hlx_lower_slot_is_reusable(const hlx_lower_ctx_t* c, int32_t slot);

typedef hlx_status_t (*hlx_lower_fn)(hlx_lower_ctx_t* c, const hlx_op_t* op);

typedef struct hlx_lowering_t {
  hlx_opcode_t op;
  hlx_lower_fn fn;
} hlx_lowering_t;

/* Family tables, each ending with {HLX_OP_UNKNOWN, NULL}. */
extern const hlx_lowering_t hlx_lowerings_core[];
extern const hlx_lowering_t hlx_lowerings_elementwise[];
extern const hlx_lowering_t hlx_lowerings_data_movement[];
extern const hlx_lowering_t hlx_lowerings_check[];
extern const hlx_lowering_t hlx_lowerings_control_flow[];
extern const hlx_lowering_t hlx_lowerings_reduce[];
extern const hlx_lowering_t hlx_lowerings_dot[];
extern const hlx_lowering_t hlx_lowerings_ragged_dot[];
extern const hlx_lowering_t hlx_lowerings_host[];
extern const hlx_lowering_t hlx_lowerings_gather_scatter[];
extern const hlx_lowering_t hlx_lowerings_window[];
extern const hlx_lowering_t hlx_lowerings_conv[];
extern const hlx_lowering_t hlx_lowerings_sort[];
extern const hlx_lowering_t hlx_lowerings_linalg[];
extern const hlx_lowering_t hlx_lowerings_fft[];
extern const hlx_lowering_t hlx_lowerings_rng[];
extern const hlx_lowering_t hlx_lowerings_map[];
extern const hlx_lowering_t hlx_lowerings_quant[];
extern const hlx_lowering_t hlx_lowerings_collective[];
extern const hlx_lowering_t hlx_lowerings_einsum[];



/* The single slot of a tensor/token operand. */
hlx_status_t hlx_lower_in(hlx_lower_ctx_t* c, const hlx_op_t* op, int i,
                          int32_t* slot) HLX_MUST_USE;
/* Fresh slots for result i (a tensor gets one; a tuple its leaves). */
hlx_status_t hlx_lower_out(hlx_lower_ctx_t* c, const hlx_op_t* op, int i,
                           int32_t* slot) HLX_MUST_USE;
/* Makes value v use the slots of `src` (no copy: slots are immutable). */
hlx_status_t hlx_lower_alias(hlx_lower_ctx_t* c, const hlx_value_t* v,
                             const hlx_value_slots_t* src) HLX_MUST_USE;
hlx_status_t hlx_lower_slots_of(hlx_lower_ctx_t* c, const hlx_value_t* v,
                                hlx_value_slots_t* out) HLX_MUST_USE;
/* Allocates (and maps) fresh slots for every leaf of v. */
hlx_status_t hlx_lower_define(hlx_lower_ctx_t* c, const hlx_value_t* v,
                              hlx_value_slots_t* out) HLX_MUST_USE;
hlx_status_t hlx_lower_emit(hlx_lower_ctx_t* c, const hlx_op_t* op,
                            hlx_task_fn fn, const void* args, int32_t num_in,
                            const int32_t* in, int32_t num_out,
                            const int32_t* out) HLX_MUST_USE;
/* The common case: a task reading operands 0..num_in-1 (num_in <= 8) and
 * writing a fresh slot for result 0. */
hlx_status_t hlx_lower_emit_simple(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                   hlx_task_fn fn, const void* args,
                                   int32_t num_in) HLX_MUST_USE;
void* hlx_lower_alloc(hlx_lower_ctx_t* c, size_t bytes);
/* Flattened slots of all operands, or (results=true) fresh slots for all
 * results. The array lives in the plan's arena. */
hlx_status_t hlx_lower_flatten(hlx_lower_ctx_t* c, const hlx_op_t* op,
                               bool results, int32_t** out,
                               int32_t* n) HLX_MUST_USE;


/* Lowers a region into a new plan whose parameters are the block arguments
 * followed by the values the region captures from outside; its results are
 * the flattened operands of the terminator. `captures` (arena) lists the
 * captured values; the caller passes their slots after the explicit ones. */
hlx_status_t hlx_lower_region(hlx_lower_ctx_t* c, const hlx_region_t* r,
                              hlx_plan_t** out_plan,
                              const hlx_value_t*** captures,
                              int32_t* num_captures) HLX_MUST_USE;

/* Lowers the body of `callee` into c's plan in place of the call `op`:
 * the callee's arguments become the call's operand slots and the call's
 * results the slots of the callee's returned values, so the callee's ops
 * join the caller's task DAG (concurrency, buffer reuse) instead of running
 * as a nested plan. Sets *inlined = false, emitting nothing, for a
 * recursive call (the callee is already being lowered around it) or calls
 * nested too deeply; the caller then emits a call task. */
hlx_status_t hlx_lower_inline_call(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                   const hlx_func_t* callee,
                                   bool* inlined) HLX_MUST_USE;

/* Whether tasks of `op` may be folded into constants (pure elementwise and
 * data-movement ops; graph/lower/opt/fold.c). */
bool hlx_lower_is_foldable(hlx_opcode_t op);

/* Runs the task now instead of emitting it when `op` is foldable and every
 * input slot is a plan constant; its outputs then become constants and
 * *folded is set. Otherwise does nothing (the caller emits the task). */
hlx_status_t hlx_lower_try_fold(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                hlx_task_fn fn, const void* args,
                                int32_t num_in, const int32_t* in,
                                int32_t num_out, const int32_t* out,
                                bool* folded) HLX_MUST_USE;

/* Dead-code elimination (graph/lower/opt/dce.c): *needed (malloc'd, or NULL
 * when DCE is off) marks by value id what block b of f needs; ops of that
 * block for which hlx_lower_op_is_dead holds are not lowered. */
hlx_status_t hlx_lower_dead_values(const hlx_func_t* f, const hlx_block_t* b,
                                   unsigned char** needed) HLX_MUST_USE;
bool hlx_lower_op_is_dead(const hlx_lower_ctx_t* c, const hlx_op_t* op);
/* Compute ops without effects besides the foldable ones (constants, dot,
 * reduce, gather, ...; their regions aside). */
bool hlx_lower_pure_compute_op(hlx_opcode_t code);

/* Common-subexpression elimination (graph/lower/opt/cse.c). begin/end give c
 * its value numbers (and, with own_table, a new table for its plan).
 * hlx_lower_cse_op: *reused when op's results were aliased to an equal
 * op's slots (emit nothing); else lower it and call _record. The _group
 * pair does the same for fusion group g. The _inline pair maps a call's
 * operands to the callee's arguments and the callee's results back. */
hlx_status_t hlx_lower_cse_begin(hlx_lower_ctx_t* c,
                                 bool own_table) HLX_MUST_USE;
void hlx_lower_cse_end(hlx_lower_ctx_t* c, bool own_table);
hlx_status_t hlx_lower_cse_op(hlx_lower_ctx_t* c, const hlx_op_t* op,
                              bool* reused) HLX_MUST_USE;
void hlx_lower_cse_record(hlx_lower_ctx_t* c, const hlx_op_t* op);
struct hlx_fusion_t;
hlx_status_t hlx_lower_cse_group(hlx_lower_ctx_t* c, const hlx_block_t* blk,
                                 const struct hlx_fusion_t* f, int32_t g,
                                 bool* reused) HLX_MUST_USE;
void hlx_lower_cse_record_group(hlx_lower_ctx_t* c, const hlx_block_t* blk,
                                const struct hlx_fusion_t* f, int32_t g);
hlx_status_t hlx_lower_cse_inline_args(hlx_lower_ctx_t* callee,
                                       const hlx_lower_ctx_t* caller,
                                       const hlx_op_t* call) HLX_MUST_USE;
hlx_status_t hlx_lower_cse_inline_results(hlx_lower_ctx_t* caller,
                                          const hlx_lower_ctx_t* callee,
                                          const hlx_op_t* call,
                                          const hlx_op_t* term) HLX_MUST_USE;

/* Emits a broadcast of the tensor in `in_slot` (type `in`, its dims
 * mapped to `bd` of `out`'s) into a fresh slot of `out`'s shape (with in's
 * element type). Used by ops with implicit broadcasting. */
hlx_status_t hlx_lower_broadcast_slot(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                      int32_t in_slot, const hlx_type_t* in,
                                      const hlx_type_t* out, const int64_t* bd,
                                      int32_t* out_slot) HLX_MUST_USE;

/* Scales, zero points and storage range of a quantized tensor type t,
 * checked (`what` names it in errors); arrays live in the plan's arena. */
struct hlx_quant_params_t;
hlx_status_t hlx_lower_quant_params(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                    const char* what, const hlx_type_t* t,
                                    struct hlx_quant_params_t* out)
    HLX_MUST_USE;

/* The native keys of a sort comparator block (2n scalar arguments, a
 * terminator returning one i1) when it is a lexicographic chain of key
 * compares, as JAX and XLA emit them; false for any other comparator.
 * keys has room for HLX_SORT_MAX_KEYS (graph/lower/sort.c). */
#define HLX_SORT_MAX_KEYS 16
struct hlx_sort_key_t;
bool hlx_lower_sort_keys(const hlx_block_t* b, struct hlx_sort_key_t* keys,
                         int32_t* num_keys);

/* A comparator plan (2n scalar parameters, then its captures, -> one i1)
 * as hlx_ref_sort_custom's `less`: it runs the plan on element lhs and rhs
 * of each of the n operands `in` (params has room for 2n + captures, the
 * captures already in place). */
typedef struct hlx_lower_plan_less_t {
  const hlx_plan_t* plan;
  int32_t n;
  const size_t* elem_size;
  const void* const* in;
  const void** params;
  hlx_run_ctx_t* ctx;
} hlx_lower_plan_less_t;
hlx_status_t hlx_lower_plan_less(void* user, int64_t lhs, int64_t rhs,
                                 bool* less) HLX_MUST_USE;

/* custom_call of a registered host function (graph/lower/host.c). */
hlx_status_t hlx_lower_host_call(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                 const char* target) HLX_MUST_USE;
/* The same for a version-2 host function f (graph/lower/host_call.c). */
hlx_status_t hlx_lower_host_call_v2(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                    const char* target,
                                    const hlx_lower_host_function_t* f)
    HLX_MUST_USE;

/* Probe values of a run (graph/lower/probe_store.c). */
hlx_status_t hlx_probe_record(hlx_probe_store_t* s, const char* id,
                              const void* data, size_t bytes) HLX_MUST_USE;
/* The iter-th value recorded under id (NULL if none); stays valid for the
 * store's lifetime. */
const void* hlx_probe_lookup(hlx_probe_store_t* s, const char* id,
                             int64_t iter, size_t* bytes);




/* Elementwise fusion (graph/passes/fusion.h, graph/lower/opt/fusion.c): whether it
 * is on for this lowering, and the emission of group g of block blk as one
 * task. *done = false (nothing emitted) when the group cannot be expressed;
 * the caller then lowers its members one by one. */
struct hlx_fusion_t;
bool hlx_lower_fusion_enabled(const hlx_lower_ctx_t* c);
/* Whether a fused group can compute this reduce of its values
 * (hlx_fusion_reduce_ok_fn). */
bool hlx_lower_fusion_reduce_ok(const hlx_op_t* op);
hlx_status_t hlx_lower_fused_group(hlx_lower_ctx_t* c, const hlx_block_t* blk,
                                   const struct hlx_fusion_t* f, int32_t g,
                                   bool* done) HLX_MUST_USE;
/* graph/lower/dot.c: the dot_general `dot` writing its product in the
 * order of `tr`, the transpose that is its result's one use (a fusion
 * group); *done = false when the library cannot write that layout. */
hlx_status_t hlx_lower_dot_transposed(hlx_lower_ctx_t* c, const hlx_op_t* dot,
                                      const hlx_op_t* tr,
                                      bool* done) HLX_MUST_USE;

#endif /* HLX_GRAPH_LOWER_INTERNAL_H_ */
