/* hlx_status_t: NULL means ok; otherwise a code and a message that names the
 * op, the operand and the rule that was broken. Shared by every layer; the
 * public header api/hlx.h declares the same type. */
#ifndef HLX_BASE_STATUS_H_
#define HLX_BASE_STATUS_H_

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hlx_status_code_t {
  HLX_STATUS_OK = 0,
  HLX_STATUS_INVALID_ARGUMENT = 1, /* bad program, shape, attribute, input */
  HLX_STATUS_UNIMPLEMENTED = 2,    /* valid but not supported yet */
  HLX_STATUS_OUT_OF_RANGE = 3,
  HLX_STATUS_RESOURCE_EXHAUSTED = 4, /* out of memory, size limits */
  HLX_STATUS_INTERNAL = 5,
  HLX_STATUS_NOT_FOUND = 6,
  HLX_STATUS_FAILED_PRECONDITION = 7,
  HLX_STATUS_DEADLINE_EXCEEDED = 8,
  HLX_STATUS_DATA_LOSS = 9, /* I/O: truncated or corrupt file */
} hlx_status_code_t;

typedef struct hlx_status_payload_t* hlx_status_t;

#if defined(__GNUC__)
#define HLX_MUST_USE __attribute__((warn_unused_result))
#define HLX_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define HLX_MUST_USE
#define HLX_PRINTF(f, a)
#endif

/* Creates a status; never fails (falls back to a static out-of-memory one). */
hlx_status_t hlx_make_status(hlx_status_code_t code, const char* fmt, ...)
    HLX_PRINTF(2, 3) HLX_MUST_USE;
hlx_status_t hlx_make_status_v(hlx_status_code_t code, const char* fmt,
                               va_list ap) HLX_MUST_USE;
/* Prepends "context: " to the message of s (s is consumed, result returned). */
hlx_status_t hlx_status_annotate(hlx_status_t s, const char* fmt, ...)
    HLX_PRINTF(2, 3) HLX_MUST_USE;
hlx_status_code_t hlx_status_code(hlx_status_t s);
const char* hlx_status_message(hlx_status_t s); /* "" for NULL */
void hlx_status_free(hlx_status_t s);
/* The shared, allocation-free out-of-memory status. */
hlx_status_t hlx_status_oom(void);

#define HLX_RETURN_IF_ERROR(expr)      \
  do {                                 \
    hlx_status_t hlx_rie_s_ = (expr);  \
    if (hlx_rie_s_) return hlx_rie_s_; \
  } while (0)

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* HLX_BASE_STATUS_H_ */
