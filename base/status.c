#include "base/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hlx_status_payload_t {
  hlx_status_code_t code;
  int is_static;
  char* message;
};

static struct hlx_status_payload_t g_oom = {
    HLX_STATUS_RESOURCE_EXHAUSTED, 1, (char*)"out of memory"};

hlx_status_t hlx_status_oom(void) { return &g_oom; }

hlx_status_t hlx_make_status_v(hlx_status_code_t code, const char* fmt,
                               va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) n = 0;
  struct hlx_status_payload_t* s = malloc(sizeof(*s));
  char* msg = malloc((size_t)n + 1);
  if (!s || !msg) {
    free(s);
    free(msg);
    return &g_oom;
  }
  vsnprintf(msg, (size_t)n + 1, fmt, ap);
  s->code = code == HLX_STATUS_OK ? HLX_STATUS_INTERNAL : code;
  s->is_static = 0;
  s->message = msg;
  return s;
}

hlx_status_t hlx_make_status(hlx_status_code_t code, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  hlx_status_t s = hlx_make_status_v(code, fmt, ap);
  va_end(ap);
  return s;
}

hlx_status_t hlx_status_annotate(hlx_status_t s, const char* fmt, ...) {
  if (!s || s->is_static) return s;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) return s;
  size_t old = strlen(s->message);
  char* msg = malloc((size_t)n + 2 + old + 1);
  if (!msg) return s;
  va_start(ap, fmt);
  vsnprintf(msg, (size_t)n + 1, fmt, ap);
  va_end(ap);
  memcpy(msg + n, ": ", 2);
  memcpy(msg + n + 2, s->message, old + 1);
  free(s->message);
  s->message = msg;
  return s;
}

hlx_status_code_t hlx_status_code(hlx_status_t s) {
  return s ? s->code : HLX_STATUS_OK;
}

const char* hlx_status_message(hlx_status_t s) { return s ? s->message : ""; }

void hlx_status_free(hlx_status_t s) {
  if (!s || s->is_static) return;
  free(s->message);
  free(s);
}
