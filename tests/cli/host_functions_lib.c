/* A library of host functions for the hlx tool (--custom-call-lib): a
 * JAX-style FFI call on a column-major matrix with a backend_config
 * dictionary. It links no hlx code: the hlx_* functions it calls are the
 * tool's, resolved when the tool loads it. */
#include "api/hlx.h"

/* cli.scale: r(i, j) = alpha * a(i, j) + shift * i, a and r column-major
 * (operand_layouts / result_layouts {0, 1}); alpha (float) and shift (int)
 * from mhlo.backend_config. */
static hlx_status_t scale(void* user, const hlx_host_call_t* call) {
  (void)user;
  const hlx_attrs_t* attrs = hlx_host_call_attrs(call);
  double alpha;
  int64_t shift;
  hlx_host_buffer_t a, r;
  hlx_status_t st = hlx_attrs_get_float(attrs, "alpha", &alpha);
  if (!st) st = hlx_attrs_get_int(attrs, "shift", &shift);
  if (!st) st = hlx_host_call_operand(call, 0, &a);
  if (!st) st = hlx_host_call_result(call, 0, &r);
  if (st) return st;
  if (a.desc.rank != 2 || a.minor_to_major[0] != 0 ||
      r.minor_to_major[0] != 0)
    return hlx_status_create(1, "cli.scale: wants column-major matrices");
  const float* x = a.data;
  float* y = r.data;
  int64_t rows = a.desc.dims[0], cols = a.desc.dims[1];
  for (int64_t j = 0; j < cols; j++)
    for (int64_t i = 0; i < rows; i++)
      y[j * rows + i] = (float)(alpha * x[j * rows + i] + (double)(shift * i));
  return NULL;
}

hlx_status_t hlx_register_host_functions(hlx_host_function_registry_t* r) {
  hlx_host_function_v2_t f = {"cli.scale", scale, NULL};
  return hlx_host_function_registry_add(r, &f);
}
