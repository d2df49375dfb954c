/* Elementwise dispatch tables, filled once from kernels/elementwise.inc:
 * table[level][dtype][op] = the best variant whose ISA is <= level and
 * runs on this CPU, NULL where the reference kernel is used. */
#include <pthread.h>

#include "kernels/dispatch.h"

static hlx_unary_fn g_unary[HLX_ISA_COUNT][HLX_DTYPE_COUNT][HLX_UNARY_COUNT];
static hlx_binary_fn g_binary[HLX_ISA_COUNT][HLX_DTYPE_COUNT][HLX_BINARY_COUNT];
static hlx_compare_fn g_compare[HLX_ISA_COUNT][HLX_DTYPE_COUNT];
static hlx_select_fn g_select[HLX_ISA_COUNT][4]; /* 1-, 2-, 4-, 8-byte */
static hlx_unary_fn g_convert[HLX_ISA_COUNT][HLX_DTYPE_COUNT][HLX_DTYPE_COUNT];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static int sel_slot(size_t es) {
  return es == 1 ? 0 : es == 2 ? 1 : es == 4 ? 2 : es == 8 ? 3 : -1;
}

/* The .inc lists the best ISA first for every kernel, so a level keeps
 * the first variant it may run. */
static void fill(void) {
  hlx_isa_t hw = hlx_cpu_detected_isa();
  for (int lv = 0; lv < HLX_ISA_COUNT; lv++) {
    (void)lv;
    (void)hw;
#if defined(__x86_64__) || defined(__aarch64__) /* the lists guard each ISA */
#define ALLOWED(ISA) (HLX_ISA_##ISA <= lv && HLX_ISA_##ISA <= hw)
#define HLX_EW_INCLUDE_EXT
#define HLX_EW_CONVERT(ISA, FROM, TO, fn)                                \
  if (ALLOWED(ISA) && !g_convert[lv][HLX_DTYPE_##FROM][HLX_DTYPE_##TO]) \
    g_convert[lv][HLX_DTYPE_##FROM][HLX_DTYPE_##TO] = fn;
#define HLX_EW_UNARY(ISA, OP, DT, fn)                              \
  if (ALLOWED(ISA) && !g_unary[lv][HLX_DTYPE_##DT][HLX_UNARY_##OP]) \
    g_unary[lv][HLX_DTYPE_##DT][HLX_UNARY_##OP] = fn;
#define HLX_EW_BINARY(ISA, OP, DT, fn)                               \
  if (ALLOWED(ISA) && !g_binary[lv][HLX_DTYPE_##DT][HLX_BINARY_##OP]) \
    g_binary[lv][HLX_DTYPE_##DT][HLX_BINARY_##OP] = fn;
#define HLX_EW_COMPARE(ISA, DT, fn) \
  if (ALLOWED(ISA) && !g_compare[lv][HLX_DTYPE_##DT]) g_compare[lv][HLX_DTYPE_##DT] = fn;
#define HLX_EW_SELECT(ISA, ES, fn) \
  if (ALLOWED(ISA) && !g_select[lv][sel_slot(ES)]) g_select[lv][sel_slot(ES)] = fn;
#include "kernels/elementwise.inc"
#undef ALLOWED
#endif
  }
}

static hlx_isa_t level(void) {
  pthread_once(&g_once, fill);
  return hlx_cpu_max_isa();
}

static bool valid_dtype(hlx_dtype_t t) {
  return (unsigned)t < HLX_DTYPE_COUNT;
}

hlx_unary_fn hlx_unary_kernel(hlx_unary_op_t op, hlx_dtype_t in,
                              hlx_dtype_t* out) {
  hlx_unary_fn ref = hlx_ref_unary_kernel(op, in, out);
  if (!ref || !valid_dtype(in) || (unsigned)op >= HLX_UNARY_COUNT) return ref;
  hlx_unary_fn fast = g_unary[level()][in][op];
  return fast ? fast : ref;
}

hlx_binary_fn hlx_binary_kernel(hlx_binary_op_t op, hlx_dtype_t in,
                                hlx_dtype_t* out) {
  hlx_binary_fn ref = hlx_ref_binary_kernel(op, in, out);
  if (!ref || !valid_dtype(in) || (unsigned)op >= HLX_BINARY_COUNT) return ref;
  hlx_binary_fn fast = g_binary[level()][in][op];
  return fast ? fast : ref;
}

hlx_unary_fn hlx_unary_kernel_for_isa(hlx_unary_op_t op, hlx_dtype_t in,
                                      hlx_isa_t isa) {
  if (isa == HLX_ISA_REFERENCE) return hlx_ref_unary_kernel(op, in, NULL);
  if (!valid_dtype(in) || (unsigned)op >= HLX_UNARY_COUNT ||
      (unsigned)isa >= HLX_ISA_COUNT || !hlx_cpu_supports_isa(isa))
    return NULL;
  (void)level();
#if defined(__x86_64__) || defined(__aarch64__) /* the lists guard each ISA */
#define HLX_EW_INCLUDE_EXT
#define HLX_EW_UNARY(ISA, OP, DT, fn) \
  if (isa == HLX_ISA_##ISA && op == HLX_UNARY_##OP && in == HLX_DTYPE_##DT) return fn;
#include "kernels/elementwise.inc"
#endif
  return NULL;
}

hlx_binary_fn hlx_binary_kernel_for_isa(hlx_binary_op_t op, hlx_dtype_t in,
                                        hlx_isa_t isa) {
  if (isa == HLX_ISA_REFERENCE) return hlx_ref_binary_kernel(op, in, NULL);
  if (!valid_dtype(in) || (unsigned)op >= HLX_BINARY_COUNT ||
      (unsigned)isa >= HLX_ISA_COUNT || !hlx_cpu_supports_isa(isa))
    return NULL;
#if defined(__x86_64__) || defined(__aarch64__) /* the lists guard each ISA */
#define HLX_EW_INCLUDE_EXT
#define HLX_EW_BINARY(ISA, OP, DT, fn) \
  if (isa == HLX_ISA_##ISA && op == HLX_BINARY_##OP && in == HLX_DTYPE_##DT) return fn;
#include "kernels/elementwise.inc"
#endif
  return NULL;
}

bool hlx_compare(hlx_compare_dir_t dir, hlx_compare_type_t type,
                 hlx_dtype_t t, const void* a, const void* b, uint8_t* y,
                 size_t n) {
  /* The variants compare floats with FLOAT ordering and integers with
   * the dtype's own signedness. */
  bool fast_type =
      type == HLX_CMP_DEFAULT ||
      (type == HLX_CMP_FLOAT && hlx_dtype_is_float(t)) ||
      (type == HLX_CMP_SIGNED && hlx_dtype_is_signed_int(t)) ||
      (type == HLX_CMP_UNSIGNED && hlx_dtype_is_int(t) &&
       !hlx_dtype_is_signed_int(t));
  if (fast_type && valid_dtype(t) && (unsigned)dir <= HLX_CMP_LT) {
    hlx_compare_fn fn = g_compare[level()][t];
    if (fn) {
      fn(dir, a, b, y, n);
      return true;
    }
  }
  return hlx_ref_compare(dir, type, t, a, b, y, n);
}

void hlx_select(size_t elem_size, const uint8_t* pred, bool pred_scalar,
                const void* on_true, const void* on_false, void* y,
                size_t n) {
  int slot = sel_slot(elem_size);
  if (!pred_scalar && slot >= 0) {
    hlx_select_fn fn = g_select[level()][slot];
    if (fn) {
      fn(pred, on_true, on_false, y, n);
      return;
    }
  }
  hlx_ref_select(elem_size, pred, pred_scalar, on_true, on_false, y, n);
}

bool hlx_convert(hlx_dtype_t from, const void* x, hlx_dtype_t to, void* y,
                 size_t n) {
  if (valid_dtype(from) && valid_dtype(to)) {
    hlx_unary_fn fn = g_convert[level()][from][to];
    if (fn) {
      fn(x, y, n);
      return true;
    }
  }
  return hlx_ref_convert(from, x, to, y, n);
}

hlx_unary_fn hlx_convert_kernel_for_isa(hlx_dtype_t from, hlx_dtype_t to,
                                        hlx_isa_t isa) {
  if (!valid_dtype(from) || !valid_dtype(to) ||
      (unsigned)isa >= HLX_ISA_COUNT || !hlx_cpu_supports_isa(isa))
    return NULL;
  (void)level();
#if defined(__x86_64__) || defined(__aarch64__) /* the lists guard each ISA */
#define HLX_EW_CONVERT(ISA, FROM, TO, fn)                                  \
  if (isa == HLX_ISA_##ISA && from == HLX_DTYPE_##FROM && to == HLX_DTYPE_##TO) \
    return fn;
#define HLX_EW_INCLUDE_EXT
#include "kernels/elementwise.inc"
#endif
  return NULL;
}
