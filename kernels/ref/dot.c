#include "kernels/dot.h"

#include <string.h>

/* i-k-j loop order: the inner loop streams rows of rhs and out. */
void hlx_ref_batch_matmul_f64(int64_t B, int64_t M, int64_t N, int64_t K,
                              const double* lhs, const double* rhs,
                              double* out) {
  memset(out, 0, (size_t)(B * M * N) * sizeof(double));
  for (int64_t b = 0; b < B; b++) {
    const double* l = lhs + b * M * K;
    const double* r = rhs + b * K * N;
    double* o = out + b * M * N;
    for (int64_t m = 0; m < M; m++)
      for (int64_t k = 0; k < K; k++) {
        double a = l[m * K + k];
        const double* rr = r + k * N;
        double* oo = o + m * N;
        for (int64_t n = 0; n < N; n++) oo[n] += a * rr[n];
      }
  }
}

void hlx_ref_batch_matmul_s64(int64_t B, int64_t M, int64_t N, int64_t K,
                              const int64_t* lhs, const int64_t* rhs,
                              int64_t* out) {
  memset(out, 0, (size_t)(B * M * N) * sizeof(int64_t));
  for (int64_t b = 0; b < B; b++) {
    const int64_t* l = lhs + b * M * K;
    const int64_t* r = rhs + b * K * N;
    uint64_t* o = (uint64_t*)(out + b * M * N);
    for (int64_t m = 0; m < M; m++)
      for (int64_t k = 0; k < K; k++) {
        uint64_t a = (uint64_t)l[m * K + k];
        const int64_t* rr = r + k * N;
        uint64_t* oo = o + m * N;
        for (int64_t n = 0; n < N; n++) oo[n] += a * (uint64_t)rr[n];
      }
  }
}

void hlx_ref_batch_matmul_c128(int64_t B, int64_t M, int64_t N, int64_t K,
                               const double* lhs, const double* rhs,
                               double* out) {
  memset(out, 0, (size_t)(B * M * N) * 2 * sizeof(double));
  for (int64_t b = 0; b < B; b++) {
    const double* l = lhs + 2 * b * M * K;
    const double* r = rhs + 2 * b * K * N;
    double* o = out + 2 * b * M * N;
    for (int64_t m = 0; m < M; m++)
      for (int64_t k = 0; k < K; k++) {
        double ar = l[2 * (m * K + k)], ai = l[2 * (m * K + k) + 1];
        const double* rr = r + 2 * k * N;
        double* oo = o + 2 * m * N;
        for (int64_t n = 0; n < N; n++) {
          double br = rr[2 * n], bi = rr[2 * n + 1];
          oo[2 * n] += ar * br - ai * bi;
          oo[2 * n + 1] += ar * bi + ai * br;
        }
      }
  }
}

void hlx_ref_batch_matmul_f32(int64_t B, int64_t M, int64_t N, int64_t K,
                              const float* lhs, const float* rhs, float* out) {
  for (int64_t b = 0; b < B; b++) {
    const float* l = lhs + b * M * K;
    const float* r = rhs + b * K * N;
    float* o = out + b * M * N;
    for (int64_t m = 0; m < M; m++)
      for (int64_t n = 0; n < N; n++) {
        float acc = 0.0f;
        for (int64_t k = 0; k < K; k++) {
          float p = l[m * K + k] * r[k * N + n];
          acc += p;
        }
        o[m * N + n] = acc;
      }
  }
}

void hlx_ref_batch_matmul_c64(int64_t B, int64_t M, int64_t N, int64_t K,
                              const float* lhs, const float* rhs, float* out) {
  for (int64_t b = 0; b < B; b++) {
    const float* l = lhs + 2 * b * M * K;
    const float* r = rhs + 2 * b * K * N;
    float* o = out + 2 * b * M * N;
    for (int64_t m = 0; m < M; m++)
      for (int64_t n = 0; n < N; n++) {
        float re = 0.0f, im = 0.0f;
        for (int64_t k = 0; k < K; k++) {
          float ar = l[2 * (m * K + k)], ai = l[2 * (m * K + k) + 1];
          float br = r[2 * (k * N + n)], bi = r[2 * (k * N + n) + 1];
          float pr = ar * br, pi = ai * bi, qr = ar * bi, qi = ai * br;
          re += pr - pi;
          im += qr + qi;
        }
        o[2 * (m * N + n)] = re;
        o[2 * (m * N + n) + 1] = im;
      }
  }
}
