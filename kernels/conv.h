/* Reference convolution on canonical operands in a wide compute type.
 *
 * The graph layer permutes and widens the operands (like dot_general) into
 *   lhs [N, S_0, ..., S_{k-1}, C]          (input batch, spatial, feature)
 *   rhs [K_0, ..., K_{k-1}, Ci, O]         (kernel spatial, in-, out-feature)
 * and the kernel writes
 *   out [N / batch_groups, P_0, ..., P_{k-1}, O]
 * all row-major and contiguous, in one of three compute types: f64 (real
 * floats), s64 (integers and pred; products and sums wrap mod 2^64, exact
 * for any narrower wraparound result), c128 (complex, interleaved re/im).
 *
 * With G = feature_group_count and B = batch_group_count (one of them 1):
 * Ci = C / G, output feature o belongs to group g = o / (O / (G * B)); it
 * reads input features g*Ci .. g*Ci+Ci-1 when G > 1 and input batch
 * g*(N/B) + n when B > 1. Spatially, output position p and kernel position
 * q along dimension d read the lhs-dilated, padded input at
 *   p * stride + q' * rhs_dilation - pad_lo,   q' = reversed ? K-1-q : q
 * which is lhs element (that) / lhs_dilation when divisible and in range,
 * else zero. */
#ifndef HLX_KERNELS_CONV_H_
#define HLX_KERNELS_CONV_H_

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HLX_CONV_MAX_SPATIAL 14

typedef struct hlx_conv_params_t {
  int32_t num_spatial;
  int64_t batch;         /* N: lhs batch size */
  int64_t in_features;   /* C: lhs feature size */
  int64_t out_features;  /* O: rhs output feature size */
  int64_t kernel_in_features; /* Ci = C / feature_group_count */
  int64_t feature_group_count, batch_group_count;
  int64_t in_spatial[HLX_CONV_MAX_SPATIAL];     /* S */
  int64_t kernel_spatial[HLX_CONV_MAX_SPATIAL]; /* K */
  int64_t out_spatial[HLX_CONV_MAX_SPATIAL];    /* P */
  int64_t stride[HLX_CONV_MAX_SPATIAL];
  int64_t pad_lo[HLX_CONV_MAX_SPATIAL];
  int64_t lhs_dilation[HLX_CONV_MAX_SPATIAL];
  int64_t rhs_dilation[HLX_CONV_MAX_SPATIAL];
  bool reversal[HLX_CONV_MAX_SPATIAL];
} hlx_conv_params_t;

/* Output spatial size along one dimension (the spec's num_windows), or -1
 * on a negative size / overflow. */
int64_t hlx_conv_num_windows(int64_t in, int64_t kernel, int64_t stride,
                             int64_t pad_lo, int64_t pad_hi,
                             int64_t lhs_dilation, int64_t rhs_dilation);

/* Return false when the parameters are inconsistent (groups do not divide
 * the sizes) or memory for the index tables runs out. */
bool hlx_ref_conv_f64(const hlx_conv_params_t* p, const double* lhs,
                      const double* rhs, double* out);
bool hlx_ref_conv_s64(const hlx_conv_params_t* p, const int64_t* lhs,
                      const int64_t* rhs, int64_t* out);
bool hlx_ref_conv_c128(const hlx_conv_params_t* p, const double* lhs,
                       const double* rhs, double* out);

#ifdef __cplusplus
}
#endif

#endif /* HLX_KERNELS_CONV_H_ */
