#include "tools/npy.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- basics */

static const char kMagic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};
enum {
  kMagicLen = 6,
  kAlign = 64,          /* NumPy's ARRAY_ALIGN */
  kGrowthDigits = 21,   /* NumPy's GROWTH_AXIS_MAX_DIGITS */
  kWriteMaxRank = 64,   /* NumPy 2's NPY_MAXDIMS */
};
/* Larger headers are refused on read (NumPy refuses > 10000 by default). */
#define HLX_NPY_MAX_HEADER ((uint32_t)1 << 24)

static bool host_is_little(void) {
  const uint16_t one = 1;
  uint8_t b;
  memcpy(&b, &one, 1);
  return b == 1;
}

static void byteswap(uint8_t* p, size_t count, size_t width) {
  if (width < 2) return;
  for (size_t i = 0; i < count; i++, p += width) {
    for (size_t a = 0, b = width - 1; a < b; a++, b--) {
      uint8_t t = p[a];
      p[a] = p[b];
      p[b] = t;
    }
  }
}

/* count * size without overflow of size_t or int64; false on overflow. */
static bool mul_ok(uint64_t a, uint64_t b, uint64_t* out) {
  if (a != 0 && b > (uint64_t)INT64_MAX / a) return false;
  *out = a * b;
  return *out <= (uint64_t)SIZE_MAX;
}

static void shape_str(char* buf, size_t cap, int32_t rank,
                      const int64_t* dims) {
  size_t n = 0;
  buf[0] = 0;
  n += (size_t)snprintf(buf + n, cap - n, "(");
  for (int32_t i = 0; i < rank && n < cap; i++)
    n += (size_t)snprintf(buf + n, cap - n, "%s%" PRId64, i ? ", " : "",
                          dims[i]);
  if (n < cap) snprintf(buf + n, cap - n, "%s)", rank == 1 ? "," : "");
}

/* ---------------------------------------------------------- descr table */

/* kind char + size -> dtype for the types NumPy can name. */
static hlx_dtype_t descr_type(char kind, uint64_t size) {
  switch (kind) {
    case 'b':
      return size == 1 ? HLX_DTYPE_PRED : HLX_DTYPE_INVALID;
    case 'i':
      return size == 1   ? HLX_DTYPE_S8
             : size == 2 ? HLX_DTYPE_S16
             : size == 4 ? HLX_DTYPE_S32
             : size == 8 ? HLX_DTYPE_S64
                         : HLX_DTYPE_INVALID;
    case 'u':
      return size == 1   ? HLX_DTYPE_U8
             : size == 2 ? HLX_DTYPE_U16
             : size == 4 ? HLX_DTYPE_U32
             : size == 8 ? HLX_DTYPE_U64
                         : HLX_DTYPE_INVALID;
    case 'f':
      return size == 2   ? HLX_DTYPE_F16
             : size == 4 ? HLX_DTYPE_F32
             : size == 8 ? HLX_DTYPE_F64
                         : HLX_DTYPE_INVALID;
    case 'c':
      return size == 8    ? HLX_DTYPE_C64
             : size == 16 ? HLX_DTYPE_C128
                          : HLX_DTYPE_INVALID;
    default:
      return HLX_DTYPE_INVALID;
  }
}

const char* hlx_npy_descr(hlx_dtype_t t) {
  const bool le = host_is_little();
#define D(l, b) return le ? (l) : (b)
  switch (t) {
    case HLX_DTYPE_PRED: return "|b1";
    case HLX_DTYPE_S2:
    case HLX_DTYPE_S4:
    case HLX_DTYPE_S8: return "|i1";
    case HLX_DTYPE_U2:
    case HLX_DTYPE_U4:
    case HLX_DTYPE_U8: return "|u1";
    case HLX_DTYPE_S16: D("<i2", ">i2");
    case HLX_DTYPE_S32: D("<i4", ">i4");
    case HLX_DTYPE_S64: D("<i8", ">i8");
    case HLX_DTYPE_U16: D("<u2", ">u2");
    case HLX_DTYPE_U32: D("<u4", ">u4");
    case HLX_DTYPE_U64: D("<u8", ">u8");
    case HLX_DTYPE_F16: D("<f2", ">f2");
    case HLX_DTYPE_BF16: D("<V2", ">V2");
    case HLX_DTYPE_F32: D("<f4", ">f4");
    case HLX_DTYPE_F64: D("<f8", ">f8");
    case HLX_DTYPE_C64: D("<c8", ">c8");
    case HLX_DTYPE_C128: D("<c16", ">c16");
    default:
      if (hlx_dtype_is_small_float(t)) return "|V1";
      return NULL;
  }
#undef D
}

/* ----------------------------------------------------------- byte source */

typedef struct {
  FILE* f;
  const uint8_t* mem;
  uint64_t total; /* bytes in the source */
  uint64_t pos;
} src_t;

/* Reads exactly n bytes; false on short read. */
static bool src_read(src_t* s, void* dst, size_t n) {
  if (n == 0) return true;
  if (s->total - s->pos < n) return false;
  if (s->f) {
    if (fread(dst, 1, n, s->f) != n) return false;
  } else {
    memcpy(dst, s->mem + s->pos, n);
  }
  s->pos += n;
  return true;
}

/* -------------------------------------------------------- header parser */

typedef struct {
  const char* p;
  const char* end;
} cur_t;

static void skip_ws(cur_t* c) {
  while (c->p < c->end &&
         (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
    c->p++;
}

static bool eat(cur_t* c, char ch) {
  skip_ws(c);
  if (c->p < c->end && *c->p == ch) {
    c->p++;
    return true;
  }
  return false;
}

/* A Python string literal without escapes ('...' or "..."), copied to buf. */
static bool parse_str(cur_t* c, char* buf, size_t cap) {
  skip_ws(c);
  if (c->p >= c->end || (*c->p != '\'' && *c->p != '"')) return false;
  char q = *c->p++;
  size_t n = 0;
  while (c->p < c->end && *c->p != q) {
    if (*c->p == '\\' || n + 1 >= cap) return false;
    buf[n++] = *c->p++;
  }
  if (c->p >= c->end) return false;
  c->p++;
  buf[n] = 0;
  return true;
}

typedef struct {
  char descr[32];
  bool have_descr, have_fortran, have_shape;
  bool fortran;
  int32_t rank;
  int64_t dims[HLX_NPY_MAX_RANK];
} header_t;

/* Parses the header dict; on failure returns a status with the reason. */
static hlx_status_t parse_header(const char* name, const char* h, size_t len,
                                 header_t* out) {
  cur_t c = {h, h + len};
  memset(out, 0, sizeof(*out));
#define BAD(...)                                                     \
  return hlx_status_annotate(                                        \
      hlx_make_status(HLX_STATUS_INVALID_ARGUMENT, __VA_ARGS__),     \
      "npy: %s: bad header", name)
  if (!eat(&c, '{')) BAD("expected '{' at the start of the header");
  for (;;) {
    if (eat(&c, '}')) break;
    char key[32];
    if (!parse_str(&c, key, sizeof key)) BAD("expected a quoted key");
    if (!eat(&c, ':')) BAD("expected ':' after '%s'", key);
    skip_ws(&c);
    if (strcmp(key, "descr") == 0) {
      if (out->have_descr) BAD("duplicate key 'descr'");
      if (c.p < c.end && *c.p == '[')
        return hlx_make_status(
            HLX_STATUS_INVALID_ARGUMENT,
            "npy: %s: structured arrays (descr is a list) are not supported",
            name);
      if (!parse_str(&c, out->descr, sizeof out->descr))
        BAD("'descr' is not a short string");
      out->have_descr = true;
    } else if (strcmp(key, "fortran_order") == 0) {
      if (out->have_fortran) BAD("duplicate key 'fortran_order'");
      if ((size_t)(c.end - c.p) >= 4 && memcmp(c.p, "True", 4) == 0) {
        out->fortran = true;
        c.p += 4;
      } else if ((size_t)(c.end - c.p) >= 5 && memcmp(c.p, "False", 5) == 0) {
        out->fortran = false;
        c.p += 5;
      } else {
        BAD("'fortran_order' is not True or False");
      }
      out->have_fortran = true;
    } else if (strcmp(key, "shape") == 0) {
      if (out->have_shape) BAD("duplicate key 'shape'");
      if (!eat(&c, '(')) BAD("'shape' is not a tuple");
      int32_t rank = 0;
      for (;;) {
        if (eat(&c, ')')) break;
        skip_ws(&c);
        if (c.p < c.end && *c.p == '-') BAD("negative dimension in 'shape'");
        if (c.p >= c.end || *c.p < '0' || *c.p > '9')
          BAD("'shape' holds something other than integers");
        uint64_t v = 0;
        while (c.p < c.end && *c.p >= '0' && *c.p <= '9') {
          if (v > ((uint64_t)INT64_MAX - (uint64_t)(*c.p - '0')) / 10)
            BAD("dimension %d in 'shape' is too large", (int)rank);
          v = v * 10 + (uint64_t)(*c.p - '0');
          c.p++;
        }
        if (c.p < c.end && *c.p == 'L') c.p++; /* Python 2 long */
        if (rank >= HLX_NPY_MAX_RANK)
          return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                                 "npy: %s: rank exceeds the maximum of %d",
                                 name, HLX_NPY_MAX_RANK);
        out->dims[rank++] = (int64_t)v;
        if (eat(&c, ',')) continue;
        if (eat(&c, ')')) break;
        BAD("expected ',' or ')' in 'shape'");
      }
      out->rank = rank;
      out->have_shape = true;
    } else {
      BAD("unexpected key '%s'", key);
    }
    if (eat(&c, ',')) continue;
    if (eat(&c, '}')) break;
    BAD("expected ',' or '}' after the value of '%s'", key);
  }
  skip_ws(&c);
  if (c.p != c.end) BAD("unexpected text after the closing '}'");
  if (!out->have_descr) BAD("missing key 'descr'");
  if (!out->have_fortran) BAD("missing key 'fortran_order'");
  if (!out->have_shape) BAD("missing key 'shape'");
#undef BAD
  return NULL;
}

/* ------------------------------------------------------------ reading */

/* Rewrites n bytes in place for the narrowing/normalising reads. Returns the
 * index of the first out-of-range element or -1. */
static int64_t convert_in_place(bool raw, hlx_dtype_t t, uint8_t* p,
                                size_t n) {
  if (t == HLX_DTYPE_PRED) {
    for (size_t i = 0; i < n; i++) p[i] = p[i] != 0;
    return -1;
  }
  int bits = hlx_dtype_bits(t);
  if (t != HLX_DTYPE_S2 && t != HLX_DTYPE_S4 && t != HLX_DTYPE_U2 &&
      t != HLX_DTYPE_U4)
    return -1;
  bool is_signed = hlx_dtype_is_signed_int(t);
  for (size_t i = 0; i < n; i++) {
    if (raw) {
      /* ml_dtypes int2/int4 byte: take the low bits. */
      if (is_signed)
        p[i] = (uint8_t)(int8_t)((int8_t)(uint8_t)(p[i] << (8 - bits)) >>
                                 (8 - bits));
      else
        p[i] &= (uint8_t)((1u << bits) - 1);
    } else if (is_signed) {
      int v = (int8_t)p[i];
      if (v < -(1 << (bits - 1)) || v >= (1 << (bits - 1))) return (int64_t)i;
    } else {
      if (p[i] >= (1u << bits)) return (int64_t)i;
    }
  }
  return -1;
}

/* Column-major -> row-major copy of `count` elements of `es` bytes. */
static void fortran_to_c(const uint8_t* in, uint8_t* out, int32_t rank,
                         const int64_t* dims, size_t count, size_t es) {
  int64_t stride[HLX_NPY_MAX_RANK], idx[HLX_NPY_MAX_RANK];
  int64_t s = 1;
  for (int32_t j = 0; j < rank; j++) {
    stride[j] = s;
    s *= dims[j];
    idx[j] = 0;
  }
  int64_t off = 0;
  for (size_t o = 0; o < count; o++) {
    memcpy(out + o * es, in + (size_t)off * es, es);
    for (int32_t j = rank - 1; j >= 0; j--) {
      off += stride[j];
      if (++idx[j] < dims[j]) break;
      off -= stride[j] * dims[j];
      idx[j] = 0;
    }
  }
}

static hlx_status_t read_impl(src_t* s, const char* name, hlx_dtype_t expected,
                              hlx_npy_array_t* out) {
  uint8_t pre[12];
  size_t have = s->total < 8 ? (size_t)s->total : 8;
  if (!src_read(s, pre, have))
    return hlx_make_status(HLX_STATUS_DATA_LOSS, "npy: %s: read error", name);
  size_t cmp = have < kMagicLen ? have : kMagicLen;
  if (memcmp(pre, kMagic, cmp) != 0)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "npy: %s: not a .npy file (bad magic)", name);
  if (have < 8)
    return hlx_make_status(HLX_STATUS_DATA_LOSS,
                           "npy: %s: file is truncated inside the preamble "
                           "(%zu bytes)",
                           name, have);
  int major = pre[6], minor = pre[7];
  size_t len_bytes;
  if (major == 1 && minor == 0)
    len_bytes = 2;
  else if ((major == 2 || major == 3) && minor == 0)
    len_bytes = 4;
  else
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "npy: %s: unsupported format version %d.%d "
                           "(supported: 1.0, 2.0, 3.0)",
                           name, major, minor);
  if (!src_read(s, pre + 8, len_bytes))
    return hlx_make_status(HLX_STATUS_DATA_LOSS,
                           "npy: %s: file is truncated inside the preamble "
                           "(header length missing)",
                           name);
  uint32_t hlen = (uint32_t)pre[8] | ((uint32_t)pre[9] << 8);
  if (len_bytes == 4)
    hlen |= ((uint32_t)pre[10] << 16) | ((uint32_t)pre[11] << 24);
  uint64_t after = s->total - s->pos;
  if (hlen > after)
    return hlx_make_status(HLX_STATUS_DATA_LOSS,
                           "npy: %s: header length %" PRIu32
                           " exceeds the %" PRIu64
                           " bytes left in the file (truncated header)",
                           name, hlen, after);
  if (hlen > HLX_NPY_MAX_HEADER)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "npy: %s: header length %" PRIu32
                           " is larger than the limit of %" PRIu32,
                           name, hlen, HLX_NPY_MAX_HEADER);
  char* h = malloc(hlen ? hlen : 1);
  if (!h) return hlx_status_oom();
  if (!src_read(s, h, hlen)) {
    free(h);
    return hlx_make_status(HLX_STATUS_DATA_LOSS,
                           "npy: %s: read error in the header", name);
  }
  header_t hd;
  hlx_status_t st = parse_header(name, h, hlen, &hd);
  free(h);
  if (st) return st;

  /* descr: [byte order] kind size */
  const char* d = hd.descr;
  char order = '=';
  if (*d == '<' || *d == '>' || *d == '|' || *d == '=') order = *d++;
  char kind = *d ? *d++ : 0;
  uint64_t size = 0;
  bool size_ok = *d != 0;
  for (; *d; d++) {
    if (*d < '0' || *d > '9' || size > 1000000) {
      size_ok = false;
      break;
    }
    size = size * 10 + (uint64_t)(*d - '0');
  }
  bool raw = kind == 'V' && size_ok && size > 0;
  hlx_dtype_t ft = size_ok ? descr_type(kind, size) : HLX_DTYPE_INVALID;
  if (!raw && ft == HLX_DTYPE_INVALID)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "npy: %s: unsupported descr '%s' (hlx reads "
                           "b1, i1-i8, u1-u8, f2/f4/f8, c8/c16 and V<n>)",
                           name, hd.descr);
  hlx_dtype_t t;
  if (raw) {
    if (expected == HLX_DTYPE_INVALID)
      return hlx_make_status(
          HLX_STATUS_INVALID_ARGUMENT,
          "npy: %s: descr '%s' is raw bytes (how ml_dtypes types such as "
          "bfloat16 or float8 are saved); the element type must be given",
          name, hd.descr);
    if (hlx_dtype_size(expected) != size)
      return hlx_make_status(
          HLX_STATUS_INVALID_ARGUMENT,
          "npy: %s: descr '%s' has %" PRIu64 "-byte elements, expected %s "
          "has %zu",
          name, hd.descr, size, hlx_dtype_name(expected),
          hlx_dtype_size(expected));
    t = expected;
  } else if (expected == HLX_DTYPE_INVALID || expected == ft) {
    t = ft;
  } else if (((expected == HLX_DTYPE_S2 || expected == HLX_DTYPE_S4) &&
              ft == HLX_DTYPE_S8) ||
             ((expected == HLX_DTYPE_U2 || expected == HLX_DTYPE_U4) &&
              ft == HLX_DTYPE_U8)) {
    t = expected;
  } else {
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "npy: %s: file holds %s (descr '%s'), expected %s",
                           name, hlx_dtype_name(ft), hd.descr,
                           hlx_dtype_name(expected));
  }

  size_t es = hlx_dtype_size(t);
  uint64_t count = 1;
  for (int32_t i = 0; i < hd.rank; i++) {
    if (!mul_ok(count, (uint64_t)hd.dims[i], &count)) {
      char sh[512];
      shape_str(sh, sizeof sh, hd.rank, hd.dims);
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "npy: %s: shape %s has too many elements "
                             "(overflow)",
                             name, sh);
    }
  }
  uint64_t nbytes;
  if (!mul_ok(count, es, &nbytes)) {
    char sh[512];
    shape_str(sh, sizeof sh, hd.rank, hd.dims);
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "npy: %s: shape %s of '%s' needs more bytes than "
                           "can be addressed (overflow)",
                           name, sh, hd.descr);
  }
  after = s->total - s->pos;
  if (nbytes != after) {
    char sh[512];
    shape_str(sh, sizeof sh, hd.rank, hd.dims);
    if (nbytes > after)
      return hlx_make_status(HLX_STATUS_DATA_LOSS,
                             "npy: %s: data is truncated: shape %s of '%s' "
                             "needs %" PRIu64 " bytes, the file has %" PRIu64
                             " after the header",
                             name, sh, hd.descr, nbytes, after);
    return hlx_make_status(HLX_STATUS_DATA_LOSS,
                           "npy: %s: %" PRIu64
                           " unexpected bytes after the data: shape %s of "
                           "'%s' needs %" PRIu64 " bytes",
                           name, after - nbytes, sh, hd.descr, nbytes);
  }

  uint8_t* data = malloc(nbytes ? (size_t)nbytes : 1);
  if (!data) return hlx_status_oom();
  if (!src_read(s, data, (size_t)nbytes)) {
    free(data);
    return hlx_make_status(HLX_STATUS_DATA_LOSS,
                           "npy: %s: read error in the data", name);
  }
  bool file_little = order == '<' || (order != '>' && host_is_little());
  if (order != '|' && es > 1 && file_little != host_is_little()) {
    size_t w = hlx_dtype_is_complex(t) ? es / 2 : es;
    byteswap(data, (size_t)nbytes / w, w);
  }
  int64_t bad = convert_in_place(raw, t, data, (size_t)count);
  if (bad >= 0) {
    int v = hlx_dtype_is_signed_int(t) ? (int)(int8_t)data[bad] : data[bad];
    free(data);
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "npy: %s: element %" PRId64
                           " is %d, out of range for %s",
                           name, bad, v, hlx_dtype_name(t));
  }
  if (hd.fortran && hd.rank > 1 && count > 1) {
    uint8_t* c = malloc((size_t)nbytes);
    if (!c) {
      free(data);
      return hlx_status_oom();
    }
    fortran_to_c(data, c, hd.rank, hd.dims, (size_t)count, es);
    free(data);
    data = c;
  }
  out->dtype = t;
  out->rank = hd.rank;
  memcpy(out->dims, hd.dims, sizeof(out->dims));
  out->data = data;
  out->bytes = (size_t)nbytes;
  return NULL;
}

hlx_status_t hlx_npy_read_memory(const void* bytes, size_t len,
                                 const char* name, hlx_dtype_t expected,
                                 hlx_npy_array_t* out) {
  if (!out)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT, "npy: out is NULL");
  memset(out, 0, sizeof(*out));
  if (!name) name = "<memory>";
  if (!bytes && len)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "npy: %s: bytes is NULL", name);
  src_t s = {NULL, (const uint8_t*)bytes, len, 0};
  return read_impl(&s, name, expected, out);
}

hlx_status_t hlx_npy_read(const char* path, hlx_dtype_t expected,
                          hlx_npy_array_t* out) {
  if (!out)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT, "npy: out is NULL");
  memset(out, 0, sizeof(*out));
  if (!path)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT, "npy: path is NULL");
  FILE* f = fopen(path, "rb");
  if (!f)
    return hlx_make_status(
        errno == ENOENT ? HLX_STATUS_NOT_FOUND : HLX_STATUS_INVALID_ARGUMENT,
        "npy: %s: cannot open: %s", path, strerror(errno));
  hlx_status_t st = NULL;
  off_t total = -1;
  if (fseeko(f, 0, SEEK_END) == 0) total = ftello(f);
  if (total < 0 || fseeko(f, 0, SEEK_SET) != 0) {
    st = hlx_make_status(HLX_STATUS_DATA_LOSS,
                         "npy: %s: cannot determine the file size "
                         "(not a regular file?)",
                         path);
  } else {
    src_t s = {f, NULL, (uint64_t)total, 0};
    st = read_impl(&s, path, expected, out);
  }
  fclose(f);
  return st;
}

void hlx_npy_free(hlx_npy_array_t* a) {
  if (!a) return;
  free(a->data);
  memset(a, 0, sizeof(*a));
}

/* ------------------------------------------------------------ writing */

/* Converts src elements to their on-disk bytes (see npy.h). */
static void to_disk(hlx_dtype_t t, const uint8_t* src, uint8_t* dst,
                    size_t n) {
  int bits = hlx_dtype_bits(t);
  switch (t) {
    case HLX_DTYPE_PRED:
      for (size_t i = 0; i < n; i++) dst[i] = src[i] != 0;
      break;
    case HLX_DTYPE_S2:
    case HLX_DTYPE_S4:
      for (size_t i = 0; i < n; i++)
        dst[i] = (uint8_t)(int8_t)((int8_t)(uint8_t)(src[i] << (8 - bits)) >>
                                   (8 - bits));
      break;
    case HLX_DTYPE_U2:
    case HLX_DTYPE_U4:
      for (size_t i = 0; i < n; i++)
        dst[i] = src[i] & (uint8_t)((1u << bits) - 1);
      break;
    default:
      memcpy(dst, src, n);
  }
}

static bool needs_convert(hlx_dtype_t t) {
  return t == HLX_DTYPE_PRED || t == HLX_DTYPE_S2 || t == HLX_DTYPE_S4 ||
         t == HLX_DTYPE_U2 || t == HLX_DTYPE_U4;
}

/* Builds the preamble + header into a malloc'd buffer. */
static hlx_status_t make_header(const char* name, hlx_dtype_t t, int32_t rank,
                                const int64_t* dims, const void* data,
                                char** out_hdr, size_t* out_len,
                                uint64_t* out_nbytes) {
  *out_hdr = NULL;
  *out_len = 0;
  const char* descr = hlx_npy_descr(t);
  if (!descr)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "npy: %s: invalid dtype %d", name, (int)t);
  if (rank < 0 || rank > kWriteMaxRank)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "npy: %s: rank %d is outside [0, %d]", name,
                           (int)rank, kWriteMaxRank);
  if (rank > 0 && !dims)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "npy: %s: dims is NULL for rank %d", name,
                           (int)rank);
  uint64_t count = 1;
  for (int32_t i = 0; i < rank; i++) {
    if (dims[i] < 0)
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "npy: %s: dimension %d is negative (%" PRId64 ")",
                             name, (int)i, dims[i]);
    if (!mul_ok(count, (uint64_t)dims[i], &count))
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "npy: %s: element count overflows", name);
  }
  if (!mul_ok(count, hlx_dtype_size(t), out_nbytes))
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "npy: %s: byte count overflows", name);
  if (*out_nbytes && !data)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "npy: %s: data is NULL for %" PRIu64 " bytes",
                           name, *out_nbytes);

  /* Dict exactly as NumPy's _write_array_header builds it. */
  size_t cap = 128 + (size_t)rank * 24 + kGrowthDigits + kAlign;
  char* dict = malloc(cap);
  if (!dict) return hlx_status_oom();
  size_t n = (size_t)snprintf(dict, cap,
                              "{'descr': '%s', 'fortran_order': False, "
                              "'shape': (",
                              descr);
  for (int32_t i = 0; i < rank; i++)
    n += (size_t)snprintf(dict + n, cap - n, "%s%" PRId64, i ? ", " : "",
                          dims[i]);
  n += (size_t)snprintf(dict + n, cap - n, "%s), }", rank == 1 ? "," : "");
  if (rank > 0) {
    char first[24];
    int fl = snprintf(first, sizeof first, "%" PRId64, dims[0]);
    for (int k = fl; k < kGrowthDigits; k++) dict[n++] = ' ';
  }
  /* Version 1.0 unless the padded header overflows a uint16 length. */
  size_t pre = kMagicLen + 2 + 2;
  size_t pad = kAlign - (pre + n + 1) % kAlign;
  int major = 1;
  if (n + pad + 1 > 65535) {
    pre = kMagicLen + 2 + 4;
    pad = kAlign - (pre + n + 1) % kAlign;
    major = 2;
  }
  size_t hlen = n + pad + 1;
  char* buf = malloc(pre + hlen);
  if (!buf) {
    free(dict);
    return hlx_status_oom();
  }
  memcpy(buf, kMagic, kMagicLen);
  buf[6] = (char)major;
  buf[7] = 0;
  buf[8] = (char)(hlen & 0xFF);
  buf[9] = (char)((hlen >> 8) & 0xFF);
  if (major == 2) {
    buf[10] = (char)((hlen >> 16) & 0xFF);
    buf[11] = (char)((hlen >> 24) & 0xFF);
  }
  memcpy(buf + pre, dict, n);
  memset(buf + pre + n, ' ', pad);
  buf[pre + hlen - 1] = '\n';
  free(dict);
  *out_hdr = buf;
  *out_len = pre + hlen;
  return NULL;
}

hlx_status_t hlx_npy_encode(hlx_dtype_t t, int32_t rank, const int64_t* dims,
                            const void* data, void** out_bytes,
                            size_t* out_len) {
  if (!out_bytes || !out_len)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "npy: encode: output pointer is NULL");
  *out_bytes = NULL;
  *out_len = 0;
  char* hdr;
  size_t hl;
  uint64_t nbytes;
  HLX_RETURN_IF_ERROR(
      make_header("<memory>", t, rank, dims, data, &hdr, &hl, &nbytes));
  if (nbytes > (uint64_t)SIZE_MAX - hl) {
    free(hdr);
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "npy: <memory>: byte count overflows");
  }
  uint8_t* buf = realloc(hdr, hl + (size_t)nbytes);
  if (!buf) {
    free(hdr);
    return hlx_status_oom();
  }
  if (nbytes) to_disk(t, (const uint8_t*)data, buf + hl, (size_t)nbytes);
  *out_bytes = buf;
  *out_len = hl + (size_t)nbytes;
  return NULL;
}

hlx_status_t hlx_npy_write(const char* path, hlx_dtype_t t, int32_t rank,
                           const int64_t* dims, const void* data) {
  if (!path)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT, "npy: path is NULL");
  char* hdr;
  size_t hl;
  uint64_t nbytes;
  HLX_RETURN_IF_ERROR(make_header(path, t, rank, dims, data, &hdr, &hl,
                                  &nbytes));
  FILE* f = fopen(path, "wb");
  if (!f) {
    int e = errno;
    free(hdr);
    return hlx_make_status(
        e == ENOENT ? HLX_STATUS_NOT_FOUND : HLX_STATUS_INVALID_ARGUMENT,
        "npy: %s: cannot open for writing: %s", path, strerror(e));
  }
  bool ok = fwrite(hdr, 1, hl, f) == hl;
  free(hdr);
  const uint8_t* src = (const uint8_t*)data;
  if (ok && nbytes) {
    if (!needs_convert(t)) {
      ok = fwrite(src, 1, (size_t)nbytes, f) == (size_t)nbytes;
    } else {
      uint8_t chunk[4096];
      for (uint64_t off = 0; ok && off < nbytes; off += sizeof chunk) {
        size_t m = nbytes - off < sizeof chunk ? (size_t)(nbytes - off)
                                               : sizeof chunk;
        to_disk(t, src + off, chunk, m);
        ok = fwrite(chunk, 1, m, f) == m;
      }
    }
  }
  int e = ok ? 0 : errno;
  if (fclose(f) != 0 && ok) {
    ok = false;
    e = errno;
  }
  if (!ok) {
    remove(path);
    return hlx_make_status(HLX_STATUS_DATA_LOSS, "npy: %s: write failed: %s",
                           path, e ? strerror(e) : "short write");
  }
  return NULL;
}
