/* `hlx check` of XLA HLO text (see check_hlo.c). */
#ifndef HLX_TOOLS_CHECK_HLO_H_
#define HLX_TOOLS_CHECK_HLO_H_

#include <stdbool.h>
#include <stddef.h>

#include "tools/check_runner.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Checks one HLO module: PASS when it parses, round-trips (printed as HLO
 * and parsed again it is the same program: both print the same StableHLO
 * text) and, with run, its entry runs on deterministic random inputs
 * (elided constants filled) with results equal to the reference build's.
 * *why: malloc'd reason or NULL. */
hlx_check_outcome_t hlx_check_hlo(const char* text, size_t len,
                                  const char* file, int first_line, bool run,
                                  char** why);

#ifdef __cplusplus
}
#endif

#endif /* HLX_TOOLS_CHECK_HLO_H_ */
