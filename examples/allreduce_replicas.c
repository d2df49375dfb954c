/* Runs a stablehlo.all_reduce across 4 replicas with
 * hlx_executable_run_replicated and checks the sums. Uses only api/hlx.h.
 *
 * Replica r holds x_r[i] = 10 r + i (f32[6]). Two all-reduces:
 *   all  = sum over replicas {0,1,2,3}         -> 60 + 4 i
 *   pair = sum over {0,1} and over {2,3} -> 10 + 2 i (replicas 0, 1)
 *                                           and  50 + 2 i (replicas 2, 3)
 * Prints each replica's results and "all sums correct", or exits 1. */
#include <stdio.h>
#include <string.h>

#include "api/hlx.h"

#define N 6
#define REPLICAS 4

static const char kProgram[] =
    "func.func @main(%x: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>) {\n"
    "  %all = \"stablehlo.all_reduce\"(%x) ({\n"
    "    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
    "      %s = stablehlo.add %a, %b : tensor<f32>\n"
    "      stablehlo.return %s : tensor<f32>\n"
    "  }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}\n"
    "    : (tensor<6xf32>) -> tensor<6xf32>\n"
    "  %pair = \"stablehlo.all_reduce\"(%x) ({\n"
    "    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
    "      %s = stablehlo.add %a, %b : tensor<f32>\n"
    "      stablehlo.return %s : tensor<f32>\n"
    "  }) {replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>}\n"
    "    : (tensor<6xf32>) -> tensor<6xf32>\n"
    "  return %all, %pair : tensor<6xf32>, tensor<6xf32>\n"
    "}\n";

/* Prints the failed call's message; returns 1 for main. */
static int report(hlx_status_t st, const char* what) {
  fprintf(stderr, "error: %s: %s\n", what, hlx_status_get_message(st));
  hlx_status_release(st);
  return 1;
}

int main(void) {
  hlx_program_t* p = NULL;
  hlx_executable_t* e = NULL;
  hlx_buffer_t* in[REPLICAS] = {0};
  hlx_buffer_t* out[REPLICAS * 2] = {0};
  int rc = 1;
  hlx_status_t st = hlx_program_parse(kProgram, strlen(kProgram),
                                      "allreduce.mlir", 1, &p);
  if (st) return report(st, "parse");
  hlx_compile_options_t o;
  hlx_compile_options_init(&o);
  o.num_replicas = REPLICAS;
  st = hlx_executable_create(p, &o, &e);
  if (st) {
    rc = report(st, "compile");
    goto done;
  }
  hlx_tensor_desc_t d;
  memset(&d, 0, sizeof d);
  d.element_type = hlx_element_type_from_name("f32");
  d.rank = 1;
  d.dims[0] = N;
  for (int r = 0; r < REPLICAS; r++) {
    float x[N];
    for (int i = 0; i < N; i++) x[i] = (float)(10 * r + i);
    st = hlx_buffer_create(&d, x, &in[r]);
    if (st) {
      rc = report(st, "buffer");
      goto done;
    }
  }
  /* Parameters and results are replica-major: out[2r], out[2r+1]. */
  st = hlx_executable_run_replicated(e, in, REPLICAS, out, REPLICAS * 2);
  if (st) {
    rc = report(st, "run");
    goto done;
  }
  int wrong = 0;
  for (int r = 0; r < REPLICAS; r++) {
    const float* all = hlx_buffer_data(out[2 * r]);
    const float* pair = hlx_buffer_data(out[2 * r + 1]);
    printf("replica %d: all =", r);
    for (int i = 0; i < N; i++) printf(" %g", all[i]);
    printf("  pair =");
    for (int i = 0; i < N; i++) printf(" %g", pair[i]);
    printf("\n");
    for (int i = 0; i < N; i++) {
      float want_all = (float)(60 + 4 * i);
      float want_pair = (float)((r < 2 ? 10 : 50) + 2 * i);
      if (all[i] != want_all || pair[i] != want_pair) {
        printf("replica %d element %d: got %g and %g, want %g and %g\n", r, i,
               all[i], pair[i], want_all, want_pair);
        wrong++;
      }
    }
  }
  if (!wrong) printf("all sums correct\n");
  rc = wrong ? 1 : 0;
done:
  for (int i = 0; i < REPLICAS * 2; i++) hlx_buffer_destroy(out[i]);
  for (int r = 0; r < REPLICAS; r++) hlx_buffer_destroy(in[r]);
  hlx_executable_destroy(e);
  hlx_program_destroy(p);
  return rc;
}
