/* MLIR bytecode primitives: bounds-checked reads of bytes, varints and
 * section headers, and the reader's error messages, which name the byte
 * offset in the file, the part being read and what was expected. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "graph/stablehlo/bytecode_internal.h"

/* ---- Errors ------------------------------------------------------------------ */
static bool fail_v(hlx_bc_t* bc, hlx_status_code_t code, const uint8_t* at,
                   const char* what, const char* fmt, va_list ap) {
  if (bc->err) return false;
  char msg[400];
  vsnprintf(msg, sizeof msg, fmt, ap);
  const char* file = bc->filename ? bc->filename : "<bytecode>";
  if (at && at >= bc->data && at <= bc->data + bc->size)
    bc->err = hlx_make_status(code, "%s: byte %zu (%s): %s%s", file,
                              (size_t)(at - bc->data), what ? what : "header",
                              code == HLX_STATUS_UNIMPLEMENTED ? "unsupported: " : "",
                              msg);
  else
    bc->err = hlx_make_status(code, "%s: %s%s%s%s", file, what ? what : "",
                              what ? ": " : "",
                              code == HLX_STATUS_UNIMPLEMENTED ? "unsupported: " : "",
                              msg);
  return false;
}

bool hlx_bc_fail(hlx_bc_t* bc, const hlx_bc_stream_t* s, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fail_v(bc, HLX_STATUS_INVALID_ARGUMENT, s ? s->p : NULL, s ? s->what : NULL,
         fmt, ap);
  va_end(ap);
  return false;
}

bool hlx_bc_fail_at(hlx_bc_t* bc, const uint8_t* at, const char* what,
                    const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fail_v(bc, HLX_STATUS_INVALID_ARGUMENT, at, what, fmt, ap);
  va_end(ap);
  return false;
}

bool hlx_bc_unsupported(hlx_bc_t* bc, const hlx_bc_stream_t* s,
                        const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fail_v(bc, HLX_STATUS_UNIMPLEMENTED, s ? s->p : NULL, s ? s->what : NULL,
         fmt, ap);
  va_end(ap);
  return false;
}

void hlx_bc_oom(hlx_bc_t* bc) {
  if (!bc->err) bc->err = hlx_status_oom();
}

/* ---- Memory --------------------------------------------------------------------- */
static void* alloc_in(hlx_bc_t* bc, hlx_arena_t* a, size_t n, size_t elem) {
  if (bc->err) return NULL;
  void* r = hlx_arena_alloc_array(a, n ? n : 1, elem ? elem : 1);
  if (!r) hlx_bc_oom(bc);
  return r;
}

void* hlx_bc_scratch(hlx_bc_t* bc, size_t n, size_t elem) {
  return alloc_in(bc, &bc->scratch, n, elem);
}

void* hlx_bc_irmem(hlx_bc_t* bc, size_t n, size_t elem) {
  return alloc_in(bc, &bc->m->arena, n, elem);
}

/* ---- Streams ---------------------------------------------------------------------- */
hlx_bc_stream_t hlx_bc_stream(const uint8_t* p, size_t n, const char* what) {
  hlx_bc_stream_t s = {p, p + n, what};
  return s;
}

size_t hlx_bc_left(const hlx_bc_stream_t* s) { return (size_t)(s->end - s->p); }

bool hlx_bc_byte(hlx_bc_t* bc, hlx_bc_stream_t* s, uint8_t* out) {
  if (bc->err) return false;
  if (s->p >= s->end) return hlx_bc_fail(bc, s, "expected a byte, reached the end");
  *out = *s->p++;
  return true;
}

bool hlx_bc_bytes(hlx_bc_t* bc, hlx_bc_stream_t* s, size_t n,
                  const uint8_t** out) {
  if (bc->err) return false;
  if (n > hlx_bc_left(s))
    return hlx_bc_fail(bc, s, "expected %zu bytes, only %zu left", n,
                       hlx_bc_left(s));
  *out = s->p;
  s->p += n;
  return true;
}

/* The first byte's trailing zero bits count the extra bytes (0 to 7); a zero
 * first byte means 8 full bytes follow. The value is little-endian after
 * those marker bits. */
bool hlx_bc_varint(hlx_bc_t* bc, hlx_bc_stream_t* s, uint64_t* out) {
  if (bc->err) return false;
  const uint8_t* start = s->p;
  if (s->p >= s->end)
    return hlx_bc_fail(bc, s, "expected a varint, reached the end");
  uint8_t first = *s->p;
  if (first & 1) {
    s->p++;
    *out = first >> 1;
    return true;
  }
  size_t extra = 8;
  if (first != 0) {
    extra = 0;
    while (!((first >> extra) & 1)) extra++;
  }
  if (hlx_bc_left(s) < extra + 1) {
    hlx_bc_fail(bc, s, "expected a %zu-byte varint, only %zu bytes left",
                extra + 1, hlx_bc_left(s));
    s->p = start;
    return false;
  }
  uint64_t v = 0;
  if (first == 0) {
    for (size_t i = 0; i < 8; i++) v |= (uint64_t)s->p[1 + i] << (8 * i);
  } else {
    for (size_t i = 0; i <= extra; i++) v |= (uint64_t)s->p[i] << (8 * i);
    v >>= extra + 1;
  }
  s->p += extra + 1;
  *out = v;
  return true;
}

bool hlx_bc_svarint(hlx_bc_t* bc, hlx_bc_stream_t* s, int64_t* out) {
  uint64_t v = 0;
  if (!hlx_bc_varint(bc, s, &v)) return false;
  *out = (int64_t)((v >> 1) ^ (~(v & 1) + 1)); /* zigzag */
  return true;
}

bool hlx_bc_varint_flag(hlx_bc_t* bc, hlx_bc_stream_t* s, uint64_t* out,
                        bool* flag) {
  uint64_t v = 0;
  if (!hlx_bc_varint(bc, s, &v)) return false;
  *flag = v & 1;
  *out = v >> 1;
  return true;
}

bool hlx_bc_count(hlx_bc_t* bc, hlx_bc_stream_t* s, size_t min_bytes,
                  const char* what, uint32_t* out) {
  const uint8_t* at = s->p;
  uint64_t n = 0;
  if (!hlx_bc_varint(bc, s, &n)) return false;
  size_t left = hlx_bc_left(s);
  if (n > INT32_MAX || (min_bytes > 0 && n > left / min_bytes)) {
    s->p = at;
    return hlx_bc_fail(bc, s, "%s count %llu does not fit in the %zu bytes left",
                       what, (unsigned long long)n, left);
  }
  *out = (uint32_t)n;
  return true;
}

bool hlx_bc_cstring(hlx_bc_t* bc, hlx_bc_stream_t* s, const char** out,
                    size_t* len) {
  if (bc->err) return false;
  const uint8_t* nul = memchr(s->p, 0, hlx_bc_left(s));
  if (!nul) return hlx_bc_fail(bc, s, "expected a NUL-terminated string");
  *out = (const char*)s->p;
  *len = (size_t)(nul - s->p);
  s->p = nul + 1;
  return true;
}

bool hlx_bc_align(hlx_bc_t* bc, hlx_bc_stream_t* s, uint64_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0 || alignment > 4096)
    return hlx_bc_fail(bc, s, "expected a power-of-two alignment up to 4096, got %llu",
                       (unsigned long long)alignment);
  while (((size_t)(s->p - bc->data) & (alignment - 1)) != 0) {
    uint8_t pad = 0;
    if (!hlx_bc_byte(bc, s, &pad)) return false;
    if (pad != 0xCB) {
      s->p--;
      return hlx_bc_fail(bc, s, "expected alignment padding 0xCB, got 0x%02x", pad);
    }
  }
  return true;
}

bool hlx_bc_section(hlx_bc_t* bc, hlx_bc_stream_t* s, uint8_t* id,
                    hlx_bc_stream_t* body) {
  uint8_t b = 0;
  uint64_t len = 0;
  if (!hlx_bc_byte(bc, s, &b) || !hlx_bc_varint(bc, s, &len)) return false;
  *id = b & 0x7f;
  if (*id >= HLX_BC_NUM_SECTIONS) {
    s->p -= 1;
    return hlx_bc_fail(bc, s, "expected a section id below %d, got %u",
                       HLX_BC_NUM_SECTIONS, *id);
  }
  if (b & 0x80) {
    uint64_t alignment = 0;
    if (!hlx_bc_varint(bc, s, &alignment) || !hlx_bc_align(bc, s, alignment))
      return false;
  }
  if (len > hlx_bc_left(s))
    return hlx_bc_fail(bc, s, "section %u claims %llu bytes, only %zu left", *id,
                       (unsigned long long)len, hlx_bc_left(s));
  body->p = s->p;
  body->end = s->p + len;
  body->what = s->what;
  s->p += len;
  return true;
}

bool hlx_bc_expect_end(hlx_bc_t* bc, const hlx_bc_stream_t* s) {
  if (bc->err) return false;
  if (s->p != s->end)
    return hlx_bc_fail(bc, s, "expected the end, %zu bytes are left over",
                       hlx_bc_left(s));
  return true;
}
