/* hlx run / hlx check --custom-call-lib LIB.so: shared libraries of
 * version-2 host functions, opened with dlopen and registered through
 * the entry point they export (api/hlx.h: hlx_register_host_functions). */
#ifndef HLX_TOOLS_CUSTOM_CALL_LIB_H_
#define HLX_TOOLS_CUSTOM_CALL_LIB_H_

#include "api/hlx.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hlx_custom_call_libs_t hlx_custom_call_libs_t;

/* Opens paths[0..n) in order and lets each register its functions (a
 * path without '/' names a file in the current directory, not a library
 * on the loader's search path). Errors name the library and say what
 * failed: opening it, a missing entry point, or the entry point's own
 * status. *out (NULL on error) is closed with hlx_custom_call_libs_close. */
hlx_status_t hlx_custom_call_libs_open(const char* const* paths, int n,
                                       hlx_custom_call_libs_t** out);
/* The registered functions, for hlx_compile_options_t.host_functions_v2
 * (borrowed; valid until close). l may be NULL (none). */
const hlx_host_function_v2_t* hlx_custom_call_libs_functions(
    const hlx_custom_call_libs_t* l, int32_t* out_count);
/* Unloads the libraries: after every executable using them is destroyed. */
void hlx_custom_call_libs_close(hlx_custom_call_libs_t* l);

#ifdef __cplusplus
}
#endif

#endif /* HLX_TOOLS_CUSTOM_CALL_LIB_H_ */
