#include "kernels/data_movement.h"

#include <string.h>

void hlx_row_major_strides(int32_t rank, const int64_t* dims,
                           int64_t* strides) {
  int64_t s = 1;
  for (int32_t i = rank - 1; i >= 0; i--) {
    strides[i] = s;
    s *= dims[i];
  }
}

void hlx_ref_fill(size_t elem_size, const void* value, void* out, size_t n) {
  unsigned char* o = out;
  if (n == 0) return;
  memcpy(o, value, elem_size);
  /* Doubling copies: O(log n) memcpy calls. */
  size_t done = 1;
  while (done < n) {
    size_t k = done < n - done ? done : n - done;
    memcpy(o + done * elem_size, o, k * elem_size);
    done += k;
  }
}

void hlx_ref_copy_strided(size_t elem_size, int32_t rank, const int64_t* dims,
                          const void* in, const int64_t* in_strides, void* out,
                          const int64_t* out_strides) {
  const unsigned char* src = in;
  unsigned char* dst = out;
  for (int32_t i = 0; i < rank; i++)
    if (dims[i] == 0) return;
  if (rank == 0) {
    memcpy(dst, src, elem_size);
    return;
  }
  /* Merge the innermost dims while both sides stay contiguous, so row
   * copies become one memcpy. */
  int32_t r = rank;
  int64_t inner = 1;
  while (r > 0 && in_strides[r - 1] == inner && out_strides[r - 1] == inner) {
    inner *= dims[r - 1];
    r--;
  }
  size_t run_bytes = (size_t)inner * elem_size;
  int64_t idx[HLX_KERNEL_MAX_RANK] = {0};
  if (r == 0) {
    memcpy(dst, src, run_bytes);
    return;
  }
  /* Iterate the outer r dims (the last of which may be strided). */
  const int32_t last = r - 1;
  const int64_t n_last = dims[last];
  const int64_t is_last = in_strides[last], os_last = out_strides[last];
  int64_t in_off = 0, out_off = 0;
  for (;;) {
    const unsigned char* s = src + in_off * (int64_t)elem_size;
    unsigned char* d = dst + out_off * (int64_t)elem_size;
    if (inner == 1) {
      switch (elem_size) {
        case 1:
          for (int64_t k = 0; k < n_last; k++) d[k * os_last] = s[k * is_last];
          break;
        case 2:
          for (int64_t k = 0; k < n_last; k++)
            memcpy(d + 2 * k * os_last, s + 2 * k * is_last, 2);
          break;
        case 4:
          for (int64_t k = 0; k < n_last; k++)
            memcpy(d + 4 * k * os_last, s + 4 * k * is_last, 4);
          break;
        case 8:
          for (int64_t k = 0; k < n_last; k++)
            memcpy(d + 8 * k * os_last, s + 8 * k * is_last, 8);
          break;
        default:
          for (int64_t k = 0; k < n_last; k++)
            memcpy(d + (int64_t)elem_size * k * os_last,
                   s + (int64_t)elem_size * k * is_last, elem_size);
      }
    } else {
      for (int64_t k = 0; k < n_last; k++)
        memcpy(d + (int64_t)elem_size * k * os_last,
               s + (int64_t)elem_size * k * is_last, run_bytes);
    }
    /* Advance the odometer over dims [0, last). */
    int32_t i = last - 1;
    for (; i >= 0; i--) {
      in_off += in_strides[i];
      out_off += out_strides[i];
      if (++idx[i] < dims[i]) break;
      in_off -= in_strides[i] * dims[i];
      out_off -= out_strides[i] * dims[i];
      idx[i] = 0;
    }
    if (i < 0) return;
  }
}

void hlx_ref_iota_s64(int32_t rank, const int64_t* dims, int32_t dim,
                      int64_t* out) {
  int64_t outer = 1, inner = 1;
  for (int32_t i = 0; i < dim; i++) outer *= dims[i];
  for (int32_t i = dim + 1; i < rank; i++) inner *= dims[i];
  int64_t n = rank ? dims[dim] : 1;
  int64_t k = 0;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t v = 0; v < n; v++)
      for (int64_t j = 0; j < inner; j++) out[k++] = v;
}
