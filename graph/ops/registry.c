/* The op registry: every family's rules table gathered into one table by
 * opcode, and the entry points of graph/ops/ops.h. */
#include <pthread.h>

#include "graph/ops/family.h"

static hlx_op_rules_t g_rules[HLX_OP_COUNT];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void build(void) {
  const hlx_op_rules_t* families[] = {
      hlx_op_rules_check,        hlx_op_rules_collective,
      hlx_op_rules_control_flow, hlx_op_rules_conv,
      hlx_op_rules_core,         hlx_op_rules_data_movement,
      hlx_op_rules_dot,          hlx_op_rules_elementwise,
      hlx_op_rules_fft,          hlx_op_rules_gather_scatter,
      hlx_op_rules_host,         hlx_op_rules_linalg,
      hlx_op_rules_map,          hlx_op_rules_quant,
      hlx_op_rules_reduce,       hlx_op_rules_rng,
      hlx_op_rules_sort,         hlx_op_rules_window,
  };
  for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
    for (const hlx_op_rules_t* e = families[f]; e->op != HLX_OP_UNKNOWN; e++)
      g_rules[e->op] = *e;
}

static const hlx_op_rules_t* rules_of(hlx_opcode_t code) {
  pthread_once(&g_once, build);
  return code > HLX_OP_UNKNOWN && code < HLX_OP_COUNT ? &g_rules[code]
                                                      : NULL;
}

hlx_status_t hlx_op_verify(const hlx_op_t* op, const hlx_module_t* m) {
  /* Counts first: every rule indexes operands, results and regions. */
  char why[96];
  if (!hlx_op_arity_ok(op, why, sizeof why))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT, "%s", why);
  const hlx_op_rules_t* r = rules_of(op->code);
  return r && r->verify ? r->verify(op, m) : NULL;
}

hlx_status_t hlx_op_infer(const hlx_op_t* op, hlx_arena_t* arena,
                          hlx_type_t** out, bool* inferred) {
  *inferred = false;
  char why[96];
  if (!hlx_op_arity_ok(op, why, sizeof why))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT, "%s", why);
  const hlx_op_rules_t* r = rules_of(op->code);
  if (!r || !r->infer) return NULL;
  HLX_RETURN_IF_ERROR(r->infer(op, arena, out));
  *inferred = true;
  return NULL;
}

bool hlx_op_has_verify(hlx_opcode_t code) {
  const hlx_op_rules_t* r = rules_of(code);
  return r && r->verify;
}

bool hlx_op_has_infer(hlx_opcode_t code) {
  const hlx_op_rules_t* r = rules_of(code);
  return r && r->infer;
}
