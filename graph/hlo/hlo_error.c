/* Error statuses of the HLO front end: the first error wins and names the
 * file, line and column, and the offending token. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "graph/hlo/hlo_internal.h"

static bool set_v(hlo_err_t* e, hlx_status_code_t code, int line, int col,
                  const char* fmt, va_list ap) {
  if (e->status) return false;
  char msg[512];
  vsnprintf(msg, sizeof msg, fmt, ap);
  e->status =
      hlx_make_status(code, "%s:%d:%d: %s",
                      e->filename ? e->filename : "<input>", line, col, msg);
  return false;
}

bool hlo_error_at(hlo_err_t* e, int line, int col, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  set_v(e, HLX_STATUS_INVALID_ARGUMENT, line, col, fmt, ap);
  va_end(ap);
  return false;
}

static void describe(hlo_tok_t t, char* buf, size_t n) {
  if (t.kind == HT_EOF) {
    snprintf(buf, n, "end of input");
    return;
  }
  char tmp[48];
  size_t len = t.n > 40 ? 40 : t.n, o = 0;
  for (size_t i = 0; i < len; i++) {
    char c = t.p[i];
    tmp[o++] = (c >= 32 && c < 127) ? c : '?';
  }
  tmp[o] = 0;
  snprintf(buf, n, "'%s%s'", tmp, t.n > 40 ? "..." : "");
}

bool hlo_error_tok(hlo_err_t* e, hlo_tok_t t, const char* expected) {
  char d[64];
  describe(t, d, sizeof d);
  if (t.kind == HT_ERROR)
    return hlo_error_at(
        e, t.line, t.col, "expected %s, got %s (%s)", expected, d,
        t.n == 2                            ? "unterminated comment"
        : (t.p[0] == '"' || t.p[0] == '\'') ? "unterminated string"
                                            : "stray character");
  return hlo_error_at(e, t.line, t.col, "expected %s, got %s", expected, d);
}

bool hlo_error_unsupported(hlo_err_t* e, hlo_tok_t t, const char* fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  char d[64];
  describe(t, d, sizeof d);
  if (e->status) return false;
  e->status = hlx_make_status(
      HLX_STATUS_UNIMPLEMENTED, "%s:%d:%d: unsupported: %s (at %s)",
      e->filename ? e->filename : "<input>", t.line, t.col, msg, d);
  return false;
}

bool hlo_error_oom(hlo_err_t* e) {
  if (!e->status) e->status = hlx_status_oom();
  return false;
}
