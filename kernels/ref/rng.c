/* rng_bit_generator (Threefry-2x32 / Philox-4x32 as XLA) and rng. */
#include "kernels/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/elementwise.h"

static inline uint32_t rotl32(uint32_t v, int d) {
  return (v << d) | (v >> (32 - d));
}

void hlx_threefry2x32(const uint32_t key[2], uint32_t x[2]) {
  static const int rot[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  uint32_t ks[3] = {key[0], key[1], 0x1BD11BDAu ^ key[0] ^ key[1]};
  uint32_t x0 = x[0] + ks[0], x1 = x[1] + ks[1];
  for (int g = 0; g < 5; g++) {
    const int* r = rot + (g % 2) * 4;
    for (int i = 0; i < 4; i++) {
      x0 += x1;
      x1 = rotl32(x1, r[i]);
      x1 ^= x0;
    }
    x0 += ks[(g + 1) % 3];
    x1 += ks[(g + 2) % 3] + (uint32_t)(g + 1);
  }
  x[0] = x0;
  x[1] = x1;
}

void hlx_philox4x32(const uint32_t key[2], uint32_t ctr[4]) {
  uint32_t k0 = key[0], k1 = key[1];
  uint32_t x0 = ctr[0], x1 = ctr[1], x2 = ctr[2], x3 = ctr[3];
  for (int r = 0; r < 10; r++) {
    uint64_t p0 = (uint64_t)x0 * 0xD2511F53u;
    uint64_t p1 = (uint64_t)x2 * 0xCD9E8D57u;
    uint32_t n0 = (uint32_t)(p1 >> 32) ^ x1 ^ k0;
    uint32_t n1 = (uint32_t)p1;
    uint32_t n2 = (uint32_t)(p0 >> 32) ^ x3 ^ k1;
    uint32_t n3 = (uint32_t)p0;
    x0 = n0, x1 = n1, x2 = n2, x3 = n3;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  ctr[0] = x0, ctr[1] = x1, ctr[2] = x2, ctr[3] = x3;
}

/* Stores the low bits of v as element i of a `t` tensor. */
static inline void store_bits(hlx_dtype_t t, int bits, size_t size, void* out,
                              int64_t i, uint64_t v) {
  switch (size) {
    case 8:
      ((uint64_t*)out)[i] = v;
      return;
    case 4:
      ((uint32_t*)out)[i] = (uint32_t)v;
      return;
    case 2:
      ((uint16_t*)out)[i] = (uint16_t)v;
      return;
    default: {
      uint8_t b = (uint8_t)v;
      if (bits < 8) {
        b &= (uint8_t)((1u << bits) - 1u);
        /* Sub-byte signed ints are stored sign-extended. */
        if (hlx_dtype_is_signed_int(t) && (b >> (bits - 1)) & 1u)
          b |= (uint8_t)~((1u << bits) - 1u);
      }
      ((uint8_t*)out)[i] = b;
    }
  }
}

static void threefry_bits(const uint64_t* state, hlx_dtype_t t, int32_t rank,
                          const int64_t* dims, void* out, uint64_t* used) {
  const uint32_t key[2] = {(uint32_t)state[0], (uint32_t)(state[0] >> 32)};
  const uint64_t ctr = state[1];
  const int bits = hlx_dtype_bits(t);
  const size_t size = hlx_dtype_size(t);
  int64_t n = 1;
  for (int32_t d = 0; d < rank; d++) n *= dims[d];
  if (bits == 64) {
    for (int64_t i = 0; i < n; i++) {
      uint64_t c = ctr + (uint64_t)i;
      uint32_t x[2] = {(uint32_t)c, (uint32_t)(c >> 32)};
      hlx_threefry2x32(key, x);
      ((uint64_t*)out)[i] = (uint64_t)x[0] | (uint64_t)x[1] << 32;
    }
    *used = (uint64_t)n;
    return;
  }
  /* Split dimension: the first even one, else the first largest. */
  int64_t outer = 1, d = 1, inner = 1;
  if (rank > 0) {
    int32_t s = -1;
    for (int32_t i = 0; i < rank && s < 0; i++)
      if (dims[i] % 2 == 0) s = i;
    if (s < 0) {
      for (int32_t i = 0; i < rank; i++)
        if (s < 0 || dims[i] > dims[s]) s = i;
    }
    for (int32_t i = 0; i < s; i++) outer *= dims[i];
    d = dims[s];
    for (int32_t i = s + 1; i < rank; i++) inner *= dims[i];
  }
  const int64_t h = (d + 1) / 2;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t kk = 0; kk < h; kk++)
      for (int64_t i = 0; i < inner; i++) {
        uint64_t c = ctr + (uint64_t)((o * h + kk) * inner + i);
        uint32_t x[2] = {(uint32_t)c, (uint32_t)(c >> 32)};
        hlx_threefry2x32(key, x);
        int64_t k = 2 * kk;
        if (rank == 0) {
          store_bits(t, bits, size, out, 0, x[0]);
          continue;
        }
        store_bits(t, bits, size, out, (o * d + k) * inner + i, x[0]);
        if (k + 1 < d)
          store_bits(t, bits, size, out, (o * d + k + 1) * inner + i, x[1]);
      }
  *used = (uint64_t)(outer * h * inner);
}

/* Philox block j of the 128-bit counter (lo, hi) + j. */
static inline void philox_block(const uint32_t key[2], uint64_t lo,
                                uint64_t hi, uint64_t j, uint32_t w[4]) {
  uint64_t l = lo + j;
  uint64_t h = hi + (l < lo ? 1u : 0u);
  w[0] = (uint32_t)l;
  w[1] = (uint32_t)(l >> 32);
  w[2] = (uint32_t)h;
  w[3] = (uint32_t)(h >> 32);
  hlx_philox4x32(key, w);
}

static void philox_bits(uint64_t key64, uint64_t lo, uint64_t hi,
                        hlx_dtype_t t, int64_t n, void* out, uint64_t* used) {
  const uint32_t key[2] = {(uint32_t)key64, (uint32_t)(key64 >> 32)};
  const int bits = hlx_dtype_bits(t);
  const size_t size = hlx_dtype_size(t);
  if (bits == 64) {
    int64_t blocks = (n + 1) / 2;
    uint64_t* o = out;
    for (int64_t j = 0; j < blocks; j++) {
      uint32_t w[4];
      philox_block(key, lo, hi, (uint64_t)j, w);
      o[2 * j] = (uint64_t)w[0] | (uint64_t)w[1] << 32;
      if (2 * j + 1 < n) o[2 * j + 1] = (uint64_t)w[2] | (uint64_t)w[3] << 32;
    }
    *used = (uint64_t)blocks;
    return;
  }
  int64_t blocks = (n + 3) / 4;
  for (int64_t j = 0; j < blocks; j++) {
    uint32_t w[4];
    philox_block(key, lo, hi, (uint64_t)j, w);
    for (int q = 0; q < 4 && 4 * j + q < n; q++)
      store_bits(t, bits, size, out, 4 * j + q, w[q]);
  }
  *used = (uint64_t)blocks;
}

hlx_status_t hlx_ref_rng_bit_generator(hlx_rng_algorithm_t alg,
                                       const uint64_t* state,
                                       int32_t state_size,
                                       uint64_t* out_state, hlx_dtype_t dtype,
                                       int32_t rank, const int64_t* dims,
                                       void* out) {
  if (!(hlx_dtype_is_int(dtype) || hlx_dtype_is_float(dtype) ||
        hlx_dtype_is_pred(dtype)))
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "rng_bit_generator: output element type %s is not "
                           "an integer or floating-point type",
                           hlx_dtype_name(dtype));
  if (rank < 0) return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                                       "rng_bit_generator: negative rank");
  int64_t n = 1;
  for (int32_t d = 0; d < rank; d++) {
    if (dims[d] < 0)
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "rng_bit_generator: negative dimension");
    n *= dims[d];
  }
  uint64_t used = 0;
  if (alg == HLX_RNG_THREE_FRY) {
    if (state_size != 2)
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "rng_bit_generator: THREE_FRY needs a 2-element "
                             "state, got %d",
                             state_size);
    threefry_bits(state, dtype, rank, dims, out, &used);
    out_state[0] = state[0];
    out_state[1] = state[1] + used;
  } else if (alg == HLX_RNG_PHILOX) {
    if (state_size != 2 && state_size != 3)
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "rng_bit_generator: PHILOX needs a 2- or "
                             "3-element state, got %d",
                             state_size);
    uint64_t key = state[0];
    uint64_t lo = state_size == 3 ? state[1] : state[1];
    uint64_t hi = state_size == 3 ? state[2] : state[0];
    philox_bits(key, lo, hi, dtype, n, out, &used);
    uint64_t nl = lo + used;
    out_state[0] = key;
    out_state[1] = nl;
    if (state_size == 3) out_state[2] = hi + (nl < lo ? 1u : 0u);
  } else {
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "rng_bit_generator: unknown algorithm %d",
                           (int)alg);
  }
  if (hlx_dtype_is_pred(dtype))
    for (int64_t i = 0; i < n; i++) ((uint8_t*)out)[i] &= 1u;
  return NULL;
}

/* ---- rng --------------------------------------------------------------- */

/* Draw i of the rng op's stream: 32-bit (wide = false) or 64-bit. */
static inline uint64_t draw(const uint32_t key[2], bool wide, int64_t i,
                            uint32_t cache[4], int64_t* cached) {
  int64_t per = wide ? 2 : 4;
  int64_t j = i / per;
  if (*cached != j) {
    philox_block(key, 0, 0, (uint64_t)j, cache);
    *cached = j;
  }
  int64_t q = i % per;
  if (wide) return (uint64_t)cache[2 * q] | (uint64_t)cache[2 * q + 1] << 32;
  return cache[q];
}

hlx_status_t hlx_ref_rng(hlx_rng_distribution_t dist, hlx_dtype_t t,
                         const void* a, const void* b, uint64_t seed,
                         int64_t n, void* out) {
  const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
  const bool is_float = hlx_dtype_is_float(t);
  const bool is_int = hlx_dtype_is_int(t) || hlx_dtype_is_pred(t);
  if (!is_float && !is_int)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "rng: element type %s is not an integer, boolean "
                           "or floating-point type",
                           hlx_dtype_name(t));
  if (dist == HLX_RNG_NORMAL && !is_float)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "rng: NORMAL needs a floating-point type, got %s",
                           hlx_dtype_name(t));
  if (dist != HLX_RNG_NORMAL && dist != HLX_RNG_UNIFORM)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "rng: unknown distribution %d", (int)dist);
  if (n <= 0) return NULL;
  const bool wide = hlx_dtype_bits(t) == 64;
  uint32_t cache[4];
  int64_t cached = -1;
  if (is_int) {
    const bool uns = hlx_dtype_is_unsigned_int(t) || hlx_dtype_is_pred(t);
    hlx_dtype_t wt = uns ? HLX_DTYPE_U64 : HLX_DTYPE_S64;
    uint64_t av = 0, bv = 0;
    if (!hlx_ref_convert(t, a, wt, &av, 1) || !hlx_ref_convert(t, b, wt, &bv, 1))
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "rng: unsupported element type %s",
                             hlx_dtype_name(t));
    bool empty = uns ? bv <= av : (int64_t)bv <= (int64_t)av;
    uint64_t range = bv - av;
    uint64_t* tmp = malloc((size_t)n * sizeof(uint64_t));
    if (!tmp) return hlx_status_oom();
    for (int64_t i = 0; i < n; i++) {
      uint64_t r = draw(key, wide, i, cache, &cached);
      tmp[i] = empty ? av : av + r % range;
    }
    bool ok = hlx_ref_convert(wt, tmp, t, out, (size_t)n);
    free(tmp);
    return ok ? NULL
              : hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                                "rng: unsupported element type %s",
                                hlx_dtype_name(t));
  }
  double ad = 0, bd = 0;
  if (!hlx_ref_convert(t, a, HLX_DTYPE_F64, &ad, 1) ||
      !hlx_ref_convert(t, b, HLX_DTYPE_F64, &bd, 1))
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "rng: unsupported element type %s",
                           hlx_dtype_name(t));
  double* tmp = malloc((size_t)n * sizeof(double));
  if (!tmp) return hlx_status_oom();
  /* u in [0, 1) from the top mantissa-width bits of a draw. */
#define UNIFORM01(i)                                                     \
  (wide ? (double)(draw(key, true, (i), cache, &cached) >> 11) * 0x1p-53 \
        : (double)(draw(key, false, (i), cache, &cached) >> 8) * 0x1p-24)
  if (dist == HLX_RNG_UNIFORM) {
    for (int64_t i = 0; i < n; i++) {
      double u = UNIFORM01(i);
      double v;
      if (t == HLX_DTYPE_F64) {
        v = ad + u * (bd - ad);
        if (v >= bd && bd > ad) v = nextafter(bd, ad);
      } else {
        float fa = (float)ad, fb = (float)bd;
        float fv = fa + (float)u * (fb - fa);
        if (fv >= fb && fb > fa) fv = nextafterf(fb, fa);
        v = fv;
      }
      tmp[i] = v;
    }
  } else {
    for (int64_t i = 0; i < n; i += 2) {
      double u1 = UNIFORM01(i), u2 = UNIFORM01(i + 1);
      if (u1 < 1e-7) u1 = 1e-7;
      double r = sqrt(-2.0 * log(u1));
      tmp[i] = ad + bd * r * sin(2.0 * M_PI * u2);
      if (i + 1 < n) tmp[i + 1] = ad + bd * r * cos(2.0 * M_PI * u2);
    }
  }
#undef UNIFORM01
  bool ok = hlx_ref_convert(HLX_DTYPE_F64, tmp, t, out, (size_t)n);
  if (ok && dist == HLX_RNG_UNIFORM && t != HLX_DTYPE_F64 &&
      t != HLX_DTYPE_F32) {
    /* Narrow floats: a value that rounded up to b becomes a. */
    size_t es = hlx_dtype_size(t);
    for (int64_t i = 0; i < n; i++) {
      double back = 0;
      hlx_ref_convert(t, (char*)out + (size_t)i * es, HLX_DTYPE_F64, &back, 1);
      if (back >= bd && bd > ad) memcpy((char*)out + (size_t)i * es, a, es);
    }
  }
  free(tmp);
  return ok ? NULL
            : hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                              "rng: unsupported element type %s",
                              hlx_dtype_name(t));
}
