/* The XLA overview's axpy (alpha * x + y) built with the hlx graph
 * builder, both ways the overview shows: with parameters (compiled once,
 * run on two sets of inputs) and with the inputs as constants in the
 * graph (nothing to pass at run time). Uses only api/hlx.h.
 *
 * Usage: axpy   (prints one line per run: "<how>: v0 v1 v2 v3") */
#include <stdio.h>
#include <string.h>

#include "api/hlx.h"

#define N 4

static hlx_tensor_desc_t f32_desc(int32_t rank) {
  hlx_tensor_desc_t d;
  memset(&d, 0, sizeof d);
  d.element_type = hlx_element_type_from_name("f32");
  d.rank = rank;
  d.dims[0] = N;
  return d;
}

/* Prints "<label>: v0 ... v3" from an f32[4] buffer. */
static void print_result(const char* label, const hlx_buffer_t* r) {
  const float* v = hlx_buffer_data(r);
  printf("%s:", label);
  for (int i = 0; i < N; i++) printf(" %.2f", v[i]);
  printf("\n");
}

/* alpha * x + y from the three values, built into *p (the builder
 * latches errors: build's status covers every call). */
static hlx_status_t build_axpy(hlx_builder_t* b, uint32_t alpha, uint32_t x,
                               uint32_t y, hlx_program_t** p) {
  uint32_t ax, axpy;
  hlx_status_release(hlx_builder_binary(b, HLX_BINARY_MUL, alpha, x, NULL, 0,
                                        &ax));
  hlx_status_release(hlx_builder_binary(b, HLX_BINARY_ADD, ax, y, NULL, 0,
                                        &axpy));
  return hlx_builder_build(b, &axpy, 1, p);
}

/* Runs e on params (n of them) and prints the result. */
static hlx_status_t run(const hlx_executable_t* e, hlx_buffer_t* const* params,
                        int32_t n, const char* label) {
  hlx_buffer_t* result = NULL;
  hlx_status_t st = hlx_executable_run(e, params, n, &result, 1);
  if (!st) print_result(label, result);
  hlx_buffer_destroy(result);
  return st;
}

/* ComputeAxpyParameters: alpha f32[], x f32[4], y f32[4] parameters;
 * one executable run twice with other data. */
static hlx_status_t axpy_parameters(void) {
  hlx_builder_t* b = NULL;
  hlx_program_t* p = NULL;
  hlx_executable_t* e = NULL;
  hlx_tensor_desc_t scalar = f32_desc(0), vec = f32_desc(1);
  uint32_t alpha, x, y;
  hlx_status_t st = hlx_builder_create("axpy", &b);
  if (!st) {
    hlx_status_release(hlx_builder_parameter(b, 0, &scalar, "alpha", &alpha));
    hlx_status_release(hlx_builder_parameter(b, 1, &vec, "x", &x));
    hlx_status_release(hlx_builder_parameter(b, 2, &vec, "y", &y));
    st = build_axpy(b, alpha, x, y, &p);
  }
  if (!st) st = hlx_executable_create(p, NULL, &e);
  const float alphas[2] = {2.0f, -1.0f};
  const float xs[2][N] = {{1, 2, 3, 4}, {0.5f, 0.25f, 0, -1}};
  const float ys[2][N] = {{10, 20, 30, 40}, {1, 1, 1, 1}};
  for (int k = 0; k < 2 && !st; k++) {
    hlx_buffer_t* in[3] = {NULL, NULL, NULL};
    st = hlx_buffer_create(&scalar, &alphas[k], &in[0]);
    if (!st) st = hlx_buffer_create(&vec, xs[k], &in[1]);
    if (!st) st = hlx_buffer_create(&vec, ys[k], &in[2]);
    if (!st) st = run(e, in, 3, k ? "parameters, run 2" : "parameters, run 1");
    for (int i = 0; i < 3; i++) hlx_buffer_destroy(in[i]);
  }
  hlx_executable_destroy(e);
  hlx_program_destroy(p);
  hlx_builder_destroy(b);
  return st;
}

/* ComputeAxpyConstants: alpha, x and y are constants of the graph, so a
 * run takes no parameters. */
static hlx_status_t axpy_constants(void) {
  hlx_builder_t* b = NULL;
  hlx_program_t* p = NULL;
  hlx_executable_t* e = NULL;
  hlx_tensor_desc_t vec = f32_desc(1);
  const float x[N] = {1, 2, 3, 4}, y[N] = {10, 20, 30, 40};
  uint32_t alpha, cx, cy;
  hlx_status_t st = hlx_builder_create("axpy", &b);
  if (!st) {
    hlx_element_type_t f32 = hlx_element_type_from_name("f32");
    hlx_status_release(hlx_builder_constant_scalar(b, f32, 3.0, &alpha));
    hlx_status_release(hlx_builder_constant(b, &vec, x, &cx));
    hlx_status_release(hlx_builder_constant(b, &vec, y, &cy));
    st = build_axpy(b, alpha, cx, cy, &p);
  }
  if (!st) st = hlx_executable_create(p, NULL, &e);
  if (!st) st = run(e, NULL, 0, "constants");
  hlx_executable_destroy(e);
  hlx_program_destroy(p);
  hlx_builder_destroy(b);
  return st;
}

int main(void) {
  hlx_status_t st = axpy_parameters();
  if (!st) st = axpy_constants();
  if (st) {
    fprintf(stderr, "error: %s\n", hlx_status_get_message(st));
    hlx_status_release(st);
    return 1;
  }
  return 0;
}
