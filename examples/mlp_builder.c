/* Builds a small MLP classifier op by op with the hlx graph builder, runs
 * it and prints its logits and class probabilities. Uses only api/hlx.h.
 *
 *   probs = softmax(relu(x W1 + b1) W2 + b2)     x: f32[2,3] (a parameter)
 *
 * Usage: mlp_builder [--print]   (--print also prints the StableHLO text)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/hlx.h"

/* Reports a failed call and leaves main. */
#define CHECK(call)                                                  \
  do {                                                               \
    hlx_status_t st_ = (call);                                       \
    if (st_) {                                                       \
      fprintf(stderr, "error: %s\n  in %s\n",                        \
              hlx_status_get_message(st_), #call);                   \
      hlx_status_release(st_);                                       \
      goto done;                                                     \
    }                                                                \
  } while (0)

static hlx_tensor_desc_t desc(hlx_element_type_t t, int32_t rank,
                              int64_t d0, int64_t d1) {
  hlx_tensor_desc_t d;
  memset(&d, 0, sizeof d);
  d.element_type = t;
  d.rank = rank;
  d.dims[0] = d0;
  d.dims[1] = d1;
  return d;
}

/* (a, b) -> op(a, b) over rank-0 f32: the reduce combiners. */
static hlx_status_t scalar_combiner(hlx_binary_op_t op, const char* name,
                                    hlx_computation_t** out) {
  hlx_builder_t* b = NULL;
  hlx_status_t st = hlx_builder_create(name, &b);
  if (st) return st;
  hlx_element_type_t f32 = hlx_element_type_from_name("f32");
  hlx_tensor_desc_t s = desc(f32, 0, 0, 0);
  uint32_t x, y, r;
  /* Errors latch: checking only the final call is enough. */
  hlx_status_release(hlx_builder_parameter(b, 0, &s, "x", &x));
  hlx_status_release(hlx_builder_parameter(b, 1, &s, "y", &y));
  hlx_status_release(hlx_builder_binary(b, op, x, y, NULL, 0, &r));
  st = hlx_builder_build_computation(b, &r, 1, out);
  hlx_builder_destroy(b);
  return st;
}

int main(int argc, char** argv) {
  int rc = 1;
  bool print = argc > 1 && strcmp(argv[1], "--print") == 0;
  hlx_builder_t* b = NULL;
  hlx_computation_t* add = NULL;
  hlx_computation_t* max = NULL;
  hlx_program_t* program = NULL;
  hlx_executable_t* exe = NULL;
  hlx_buffer_t* input = NULL;
  hlx_buffer_t* results[2] = {NULL, NULL};
  char* text = NULL;

  const hlx_element_type_t f32 = hlx_element_type_from_name("f32");
  static const float kW1[3 * 4] = {1, 0, -1, 0.5f, 0, 1, 1, 0, 1, 1, 0, -1};
  static const float kB1[4] = {0.5f, -1, 0, 1};
  static const float kW2[4 * 2] = {1, -1, 0.5f, 0, 0, 2, 3, 1};
  static const float kB2[2] = {0, 1};
  static const float kX[2 * 3] = {1, 2, 3, -1, 0, 1};
  const int64_t dim1[1] = {1};
  const int64_t dim0[1] = {0};

  CHECK(scalar_combiner(HLX_BINARY_ADD, "add", &add));
  CHECK(scalar_combiner(HLX_BINARY_MAX, "max", &max));
  CHECK(hlx_builder_create("mlp", &b));

  hlx_tensor_desc_t dx = desc(f32, 2, 2, 3), dw1 = desc(f32, 2, 3, 4),
                    db1 = desc(f32, 1, 4, 0), dw2 = desc(f32, 2, 4, 2),
                    db2 = desc(f32, 1, 2, 0);
  uint32_t x, w1, b1, w2, b2, zero, ninf, h, hb, relu, o, logits;
  CHECK(hlx_builder_parameter(b, 0, &dx, "x", &x));
  CHECK(hlx_builder_constant(b, &dw1, kW1, &w1));
  CHECK(hlx_builder_constant(b, &db1, kB1, &b1));
  CHECK(hlx_builder_constant(b, &dw2, kW2, &w2));
  CHECK(hlx_builder_constant(b, &db2, kB2, &b2));
  CHECK(hlx_builder_constant_scalar(b, f32, 0.0, &zero));
  CHECK(hlx_builder_constant_scalar(b, f32, -1e30, &ninf));
  CHECK(hlx_builder_dot(b, x, w1, &h));                            /* [2,4] */
  CHECK(hlx_builder_binary(b, HLX_BINARY_ADD, h, b1, dim1, 1, &hb)); /* + b1 */
  CHECK(hlx_builder_binary(b, HLX_BINARY_MAX, hb, zero, NULL, 0, &relu));
  CHECK(hlx_builder_dot(b, relu, w2, &o));                         /* [2,2] */
  CHECK(hlx_builder_binary(b, HLX_BINARY_ADD, o, b2, dim1, 1, &logits));

  /* softmax over dimension 1: exp(l - max) / sum(exp(l - max)) */
  uint32_t m, shifted, e, s, probs;
  CHECK(hlx_builder_reduce(b, logits, ninf, max, dim1, 1, &m));    /* [2] */
  CHECK(hlx_builder_binary(b, HLX_BINARY_SUB, logits, m, dim0, 1, &shifted));
  CHECK(hlx_builder_unary(b, HLX_UNARY_EXP, shifted, &e));
  CHECK(hlx_builder_reduce(b, e, zero, add, dim1, 1, &s));
  CHECK(hlx_builder_binary(b, HLX_BINARY_DIV, e, s, dim0, 1, &probs));

  uint32_t roots[2] = {logits, probs};
  CHECK(hlx_builder_build(b, roots, 2, &program));
  if (print) {
    CHECK(hlx_program_print(program, &text, NULL));
    fputs(text, stdout);
  }

  CHECK(hlx_executable_create(program, NULL, &exe));
  CHECK(hlx_buffer_create(&dx, kX, &input));
  CHECK(hlx_executable_run(exe, &input, 1, results, 2));
  const char* names[2] = {"logits", "probs"};
  for (int k = 0; k < 2; k++) {
    const float* v = hlx_buffer_data(results[k]);
    size_t n = hlx_buffer_bytes(results[k]) / sizeof(float);
    printf("%s:", names[k]);
    for (size_t i = 0; i < n; i++) printf(" %.6f", v[i]);
    printf("\n");
  }
  rc = 0;

done:
  free(text);
  hlx_buffer_destroy(results[0]);
  hlx_buffer_destroy(results[1]);
  hlx_buffer_destroy(input);
  hlx_executable_destroy(exe);
  hlx_program_destroy(program);
  hlx_computation_destroy(add);
  hlx_computation_destroy(max);
  hlx_builder_destroy(b);
  return rc;
}
