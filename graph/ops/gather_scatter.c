/* The rules of gather and scatter (and their dynamic forms): filled as each op's Constraints move here from
 * graph/lower/gather_scatter.c. */
#include "graph/ops/family.h"

const hlx_op_rules_t hlx_op_rules_gather_scatter[] = {
    {HLX_OP_UNKNOWN, NULL, NULL},
};
