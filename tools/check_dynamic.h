/* `hlx check` of a shape-polymorphic program without data (see
 * check_dynamic.c). */
#ifndef HLX_TOOLS_CHECK_DYNAMIC_H_
#define HLX_TOOLS_CHECK_DYNAMIC_H_

#include "api/hlx.h"
#include "tools/check_runner.h"

#ifdef __cplusplus
extern "C" {
#endif

/* PASS when the program prints and re-parses to the same text and, with
 * its dimension variables bound, specialises, compiles and runs on
 * deterministic random inputs with results equal to the reference build's
 * (reference ISA, no fusion). *why: malloc'd reason or NULL. */
hlx_check_outcome_t hlx_check_dynamic(const hlx_program_t* p, const char* fn,
                                      char** why);

#ifdef __cplusplus
}
#endif

#endif /* HLX_TOOLS_CHECK_DYNAMIC_H_ */
