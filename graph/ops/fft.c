/* The rules of fft: filled as each op's Constraints move here from
 * graph/lower/fft.c. */
#include "graph/ops/family.h"

const hlx_op_rules_t hlx_op_rules_fft[] = {
    {HLX_OP_UNKNOWN, NULL, NULL},
};
