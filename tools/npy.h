/* Reading and writing NumPy .npy files (one array per file).
 *
 * Format: numpy.org/doc/stable/reference/generated/numpy.lib.format.html
 *   "\x93NUMPY" major minor header_len header data
 * header_len is a little-endian uint16 in version 1.0 and a uint32 in 2.0 and
 * 3.0; the header is a Python dict literal with the keys 'descr',
 * 'fortran_order' and 'shape', padded with spaces and ended by '\n'.
 *
 * Element types (descr <-> hlx dtype):
 *   |b1 pred (bytes 0/1)   i1 i2 i4 i8 -> S8 S16 S32 S64
 *   u1 u2 u4 u8 -> U8 U16 U32 U64   f2 f4 f8 -> F16 F32 F64
 *   c8 c16 -> C64 C128
 *   V<n> (raw void bytes): how NumPy saves the ml_dtypes types it cannot
 *        name: ml_dtypes.bfloat16 arrays get '<V2', the float8/float6/
 *        float4 and int2/int4 types get '|V1'. A V<n> descr carries no
 *        type, so it is accepted only when the caller passes an `expected`
 *        dtype whose element size is n (e.g. '<V2' as BF16 or F16, '|V1' as
 *        any 1-byte dtype). Without an expected dtype it is an error.
 *
 * On write: BF16 is stored as '<V2' and the small floats (f8/f6/f4 families)
 * as '|V1', matching ml_dtypes + np.save, so np.load(...).view(ml_dtypes.X)
 * recovers them. The sub-byte ints S2/S4 are written as int8 ('|i1', values
 * sign-extended from the low bits) and U2/U4 as uint8 ('|u1', low bits),
 * because NumPy has no narrower integer. PRED is written as '|b1' with every
 * nonzero byte stored as 1. Data is written in the host's byte order with an
 * explicit '<' or '>' and C (row-major) order, in format version 1.0 (2.0 if
 * the header would not fit a uint16 length, which needs absurd ranks).
 * Header padding follows NumPy (>= 1.24): files are byte-identical to those
 * np.save writes for the same array.
 *
 * On read: versions 1.0, 2.0 and 3.0; any byte order ('<', '>', '|', '=' or
 * none) — data is converted to the host's order; fortran_order True data is
 * transposed to row-major; any rank up to HLX_NPY_MAX_RANK including 0 and
 * zero-sized dimensions. With an `expected` dtype the file's type must be
 * that dtype, or a V<n> of its size, or — for S2/S4 (U2/U4) — '|i1' ('|u1')
 * whose values all fit the narrower range (checked; an out-of-range value is
 * an error). A '|V1' read as S2/S4 is sign-extended from the low 2/4 bits,
 * as U2/U4 masked to them; pred bytes other than 0 are read as 1.
 * No other conversion is made: an f64 file read with expected F32 is an
 * error naming both types.
 *
 * Errors (returned status, never an abort; messages start "npy: <path>: "):
 *   NOT_FOUND          the file cannot be opened for reading
 *   INVALID_ARGUMENT   not an .npy file (bad magic), unsupported version,
 *                      unparsable header, unknown or structured descr, rank
 *                      above the limit, shapes whose byte count overflows,
 *                      dtype mismatch with `expected`, bad write arguments
 *   DATA_LOSS          the file ends inside the preamble, the header or the
 *                      data, or holds bytes after the data; I/O errors
 *   RESOURCE_EXHAUSTED out of memory
 */
#ifndef HLX_TOOLS_NPY_H_
#define HLX_TOOLS_NPY_H_

#include <stddef.h>
#include <stdint.h>

#include "base/dtype.h"
#include "base/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HLX_NPY_MAX_RANK 16

/* An array read from a .npy file. `data` is malloc'd, row-major, in host
 * byte order, hlx's in-memory layout for `dtype` (one element per byte for
 * sub-byte types), `bytes` = element count * hlx_dtype_size(dtype). The
 * struct owns `data`: release it with hlx_npy_free. For a zero-element
 * array `data` is still a valid (non-NULL) allocation. */
typedef struct hlx_npy_array_t {
  hlx_dtype_t dtype;
  int32_t rank;
  int64_t dims[HLX_NPY_MAX_RANK]; /* dims[rank..] are 0 */
  void* data;
  size_t bytes;
} hlx_npy_array_t;

/* Reads the .npy file at `path` into *out. `expected` is the dtype the
 * caller wants, or HLX_DTYPE_INVALID to take the file's own (see the rules
 * above). On success *out owns new memory; on error *out is zeroed and owns
 * nothing (hlx_npy_free on it is harmless). */
hlx_status_t hlx_npy_read(const char* path, hlx_dtype_t expected,
                          hlx_npy_array_t* out) HLX_MUST_USE;

/* Same as hlx_npy_read, from `len` bytes in memory; `name` is used in error
 * messages in place of the path. `bytes` is only read. */
hlx_status_t hlx_npy_read_memory(const void* bytes, size_t len,
                                 const char* name, hlx_dtype_t expected,
                                 hlx_npy_array_t* out) HLX_MUST_USE;

/* Frees out->data and zeroes *out. NULL or an already freed/zeroed array is
 * fine. */
void hlx_npy_free(hlx_npy_array_t* a);

/* Writes a dense row-major array (hlx layout, host byte order) to `path`,
 * replacing the file. `dims` may be NULL when rank is 0; rank may be up to
 * 64 (NumPy's own limit). `data` is only read and may be NULL when the
 * array has no elements. On error a partially written file is removed. */
hlx_status_t hlx_npy_write(const char* path, hlx_dtype_t dtype, int32_t rank,
                           const int64_t* dims,
                           const void* data) HLX_MUST_USE;

/* Same as hlx_npy_write into memory: *out_bytes receives a malloc'd buffer
 * of *out_len bytes (the whole .npy file) that the caller frees with
 * free(). On error *out_bytes is NULL and *out_len 0. */
hlx_status_t hlx_npy_encode(hlx_dtype_t dtype, int32_t rank,
                            const int64_t* dims, const void* data,
                            void** out_bytes, size_t* out_len) HLX_MUST_USE;

/* The descr hlx_npy_write uses for `dtype` ("<f4", "|b1", "<V2", ...), or
 * NULL for HLX_DTYPE_INVALID. Static storage. */
const char* hlx_npy_descr(hlx_dtype_t dtype);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HLX_TOOLS_NPY_H_ */
