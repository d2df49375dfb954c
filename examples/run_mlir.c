/* Loads a StableHLO .mlir file, runs its entry function (@main) on
 * deterministic inputs and prints every result. Uses only api/hlx.h.
 *
 * Usage: run_mlir model.mlir
 *
 * Input p, element k (row-major) is ((37 k + 11 p) mod 29 - 14) / 16 for
 * floating-point parameters (exact in any float type) and the integer
 * (37 k + 11 p) mod 29 - 14 for integer ones (i1: k mod 2), so runs can be
 * checked against another implementation. Results are printed as
 * "result i: f32[8,10]" followed by one line per innermost row. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/hlx.h"

/* Reads a whole file; NULL on failure. The caller frees it. */
static char* read_file(const char* path, size_t* len) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  char* buf = NULL;
  size_t cap = 0, n = 0;
  for (;;) {
    if (n + 4096 > cap) {
      cap = (cap + 4096) * 2;
      char* nb = realloc(buf, cap);
      if (!nb) break;
      buf = nb;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  fclose(f);
  *len = n;
  return buf;
}

static int64_t num_elements(const hlx_tensor_desc_t* d) {
  int64_t n = 1;
  for (int32_t i = 0; i < d->rank; i++) n *= d->dims[i];
  return n;
}

/* Fills element k of parameter p of type name t; 0 if t is unsupported. */
static int fill(void* data, const char* t, int64_t n, int32_t p) {
  for (int64_t k = 0; k < n; k++) {
    int64_t v = (37 * k + 11 * (int64_t)p) % 29 - 14;
    if (!strcmp(t, "f32")) ((float*)data)[k] = (float)v / 16;
    else if (!strcmp(t, "f64")) ((double*)data)[k] = (double)v / 16;
    else if (!strcmp(t, "i32")) ((int32_t*)data)[k] = (int32_t)v;
    else if (!strcmp(t, "i64")) ((int64_t*)data)[k] = v;
    else if (!strcmp(t, "i1")) ((unsigned char*)data)[k] = (unsigned char)(k % 2);
    else return 0;
  }
  return 1;
}

/* Prints element k of a result of type name t. */
static void print_elem(const void* data, const char* t, int64_t k) {
  if (!strcmp(t, "f32")) printf(" %.7g", ((const float*)data)[k]);
  else if (!strcmp(t, "f64")) printf(" %.15g", ((const double*)data)[k]);
  else if (!strcmp(t, "i32")) printf(" %d", ((const int32_t*)data)[k]);
  else if (!strcmp(t, "i64")) printf(" %lld", (long long)((const int64_t*)data)[k]);
  else if (!strcmp(t, "i1")) printf(" %d", ((const unsigned char*)data)[k]);
  else printf(" ?");
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s model.mlir\n", argv[0]);
    return 2;
  }
  size_t len = 0;
  char* text = read_file(argv[1], &len);
  if (!text) {
    fprintf(stderr, "error: cannot read %s\n", argv[1]);
    return 1;
  }
  hlx_program_t* prog = NULL;
  hlx_executable_t* exe = NULL;
  hlx_buffer_t** params = NULL;
  hlx_buffer_t** results = NULL;
  int32_t np = 0, nr = 0;
  int rc = 1;
  hlx_status_t st = hlx_program_parse(text, len, argv[1], 1, &prog);
  if (!st) st = hlx_executable_create(prog, NULL, &exe);
  if (st) goto done;
  np = hlx_executable_num_params(exe);
  nr = hlx_executable_num_results(exe);
  params = calloc((size_t)np + 1, sizeof(*params));
  results = calloc((size_t)nr + 1, sizeof(*results));
  if (!params || !results) goto done;
  for (int32_t p = 0; p < np && !st; p++) {
    hlx_tensor_desc_t d;
    st = hlx_executable_param_desc(exe, p, &d);
    if (st) break;
    const char* t = hlx_element_type_name(d.element_type);
    size_t bytes = (size_t)num_elements(&d) * hlx_element_type_size(d.element_type);
    void* host = malloc(bytes ? bytes : 1);
    if (!host) goto done;
    if (!fill(host, t, num_elements(&d), p)) {
      fprintf(stderr, "error: parameter %d has type %s, which this example "
              "does not fill\n", p, t);
      free(host);
      goto done;
    }
    st = hlx_buffer_create(&d, host, &params[p]); /* copies host */
    free(host);
  }
  if (!st) st = hlx_executable_run(exe, params, np, results, nr);
  if (st) goto done;
  for (int32_t i = 0; i < nr; i++) {
    const hlx_tensor_desc_t* d = hlx_buffer_desc(results[i]);
    const char* t = hlx_element_type_name(d->element_type);
    printf("result %d: %s[", i, t);
    for (int32_t k = 0; k < d->rank; k++)
      printf("%s%lld", k ? "," : "", (long long)d->dims[k]);
    printf("]\n");
    int64_t n = num_elements(d), row = d->rank ? d->dims[d->rank - 1] : 1;
    const void* data = hlx_buffer_data(results[i]);
    for (int64_t k = 0; k < n; k++) {
      print_elem(data, t, k);
      if (row == 0 || (k + 1) % row == 0) printf("\n");
    }
  }
  rc = 0;
done:
  if (st) {
    fprintf(stderr, "error: %s\n", hlx_status_get_message(st));
    hlx_status_release(st);
  }
  for (int32_t i = 0; results && i < nr; i++) hlx_buffer_destroy(results[i]);
  for (int32_t i = 0; params && i < np; i++) hlx_buffer_destroy(params[i]);
  free(results);
  free(params);
  hlx_executable_destroy(exe);
  hlx_program_destroy(prog);
  free(text);
  return rc;
}
