/* Runs a program on given inputs twice, as compiled by default and with the
 * reference ISA and no fusion, and compares the results (`hlx check` of
 * shape-polymorphic programs and of XLA HLO text, which carry no expected
 * values of their own). */
#ifndef HLX_TOOLS_CHECK_REFERENCE_H_
#define HLX_TOOLS_CHECK_REFERENCE_H_

#include <stdbool.h>

#include "api/hlx.h"
#include "tools/check_runner.h"

#ifdef __cplusplus
extern "C" {
#endif

/* PASS when both builds of `entry` (NULL: the program's entry) run on args
 * and agree: bitwise for integers and bools, within 1e-3 absolute or
 * relative for floats (NaN equals NaN). fill_elided as the compile option.
 * Errors compiling or running give ERROR (FAIL for a failed check op),
 * *why (malloc'd) prefixed by `what`. */
hlx_check_outcome_t hlx_check_against_reference(const hlx_program_t* q,
                                                const char* entry,
                                                bool fill_elided,
                                                hlx_buffer_t** args, int32_t n,
                                                const char* what, char** why);

#ifdef __cplusplus
}
#endif

#endif /* HLX_TOOLS_CHECK_REFERENCE_H_ */
