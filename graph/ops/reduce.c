/* The rules of reduce: filled as each op's Constraints move here from
 * graph/lower/reduce.c. */
#include "graph/ops/family.h"

const hlx_op_rules_t hlx_op_rules_reduce[] = {
    {HLX_OP_UNKNOWN, NULL, NULL},
};
