/* A small FileCheck: enough of LLVM's FileCheck to verify the printed
 * output of StableHLO's test programs. Directives `// P:`, `// P-NEXT:`
 * and their `{LITERAL}` forms for one prefix P; patterns match literally
 * (regex `{{..}}` and variables `[[..]]` outside {LITERAL} are reported as
 * unsupported); horizontal whitespace runs compare as one space and the
 * pattern's leading/trailing whitespace is ignored, as FileCheck does by
 * default. P matches at or after the end of the previous match, P-NEXT on
 * the line right after it. */
#ifndef HLX_TOOLS_FILECHECK_H_
#define HLX_TOOLS_FILECHECK_H_

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Number of directives for `prefix` in check_text (0: nothing to check). */
int hlx_filecheck_count(const char* check_text, size_t len, const char* prefix);

/* True when every directive matches `output`; otherwise false and `why`
 * says which directive failed. */
bool hlx_filecheck(const char* check_text, size_t len, const char* prefix,
                   const char* output, char* why, size_t why_len);

#ifdef __cplusplus
}
#endif

#endif /* HLX_TOOLS_FILECHECK_H_ */
