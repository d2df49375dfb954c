// The unary ops whose f32 ISA variants approximate (<= 1 ULP) instead of
// copying the reference bit for bit, and their exact values (libm in
// double, well inside 1/1000 ULP of f32) for the ULP sweeps of
// tests/kernels/simd_elementwise_test.cc and benchmarks/kernels/
// vmath_sweep.cc.
#ifndef HLX_TESTS_KERNELS_TRANSCENDENTAL_EXACT_H_
#define HLX_TESTS_KERNELS_TRANSCENDENTAL_EXACT_H_

#include <math.h>

#include "kernels/elementwise.h"

namespace hlx_test {

inline bool Transcendental(hlx_unary_op_t op) {
  return op == HLX_UNARY_EXP || op == HLX_UNARY_EXPM1 ||
         op == HLX_UNARY_LOG || op == HLX_UNARY_LOG1P ||
         op == HLX_UNARY_TANH || op == HLX_UNARY_LOGISTIC ||
         op == HLX_UNARY_SIN || op == HLX_UNARY_COS || op == HLX_UNARY_ERF ||
         op == HLX_UNARY_ERFC;
}

inline double ExactF32Op(hlx_unary_op_t op, float xf) {
  double x = xf;
  switch (op) {
    case HLX_UNARY_EXP: return exp(x);
    case HLX_UNARY_EXPM1: return expm1(x);
    case HLX_UNARY_LOG: return log(x);
    case HLX_UNARY_LOG1P: return log1p(x);
    case HLX_UNARY_TANH: return tanh(x);
    case HLX_UNARY_SIN: return sin(x);
    case HLX_UNARY_COS: return cos(x);
    case HLX_UNARY_ERF: return erf(x);
    case HLX_UNARY_ERFC: return erfc(x);
    default: return x >= 0 ? 1.0 / (1.0 + exp(-x)) : exp(x) / (1.0 + exp(x));
  }
}

}  // namespace hlx_test

#endif  // HLX_TESTS_KERNELS_TRANSCENDENTAL_EXACT_H_
