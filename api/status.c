/* The public status calls: thin wrappers over base/status.h. */
#include <string.h>

#include "api/hlx.h"
#include "base/dtype.h"
#include "base/status.h"
#include "graph/lower/lower.h"

int hlx_status_get_code(hlx_status_t s) { return (int)hlx_status_code(s); }
const char* hlx_status_get_message(hlx_status_t s) {
  return hlx_status_message(s);
}
void hlx_status_release(hlx_status_t s) { hlx_status_free(s); }

hlx_status_t hlx_status_create(int code, const char* message) {
  if (code <= 0) code = HLX_STATUS_INTERNAL;
  return hlx_make_status((hlx_status_code_t)code, "%s",
                         message ? message : "");
}

bool hlx_status_is_check_failure(hlx_status_t s) {
  const char* m = hlx_status_message(s);
  return s && hlx_status_code(s) == HLX_CHECK_FAILED_CODE &&
         strstr(m, HLX_CHECK_FAILED) != NULL;
}

_Static_assert(HLX_STATUS_CODE_CHECK_FAILED == (int)HLX_CHECK_FAILED_CODE,
               "public check-failure code must match the lowering's");

const char* hlx_element_type_name(hlx_element_type_t t) {
  return hlx_dtype_name((hlx_dtype_t)t);
}
hlx_element_type_t hlx_element_type_from_name(const char* name) {
  return (hlx_element_type_t)hlx_dtype_from_name(name, strlen(name));
}
size_t hlx_element_type_size(hlx_element_type_t t) {
  return hlx_dtype_size((hlx_dtype_t)t);
}
