/* Small file helpers for the tools. */
#ifndef HLX_TOOLS_FILE_UTIL_H_
#define HLX_TOOLS_FILE_UTIL_H_

#include <stddef.h>

#include "api/hlx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads a whole file; *text is malloc'd and NUL-terminated. */
hlx_status_t hlx_read_file(const char* path, char** text, size_t* len);

/* Lists the *.mlir files under dir (recursively, sorted). *paths is a
 * malloc'd array of malloc'd strings; free with hlx_free_paths. */
hlx_status_t hlx_list_mlir_files(const char* dir, char*** paths, int* count);
/* The same for *.mlir and *.hlo (XLA HLO text) files. */
hlx_status_t hlx_list_program_files(const char* dir, char*** paths,
                                    int* count);
void hlx_free_paths(char** paths, int count);

#ifdef __cplusplus
}
#endif

#endif /* HLX_TOOLS_FILE_UTIL_H_ */
