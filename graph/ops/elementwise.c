/* The rules of elementwise ops (unary, binary, compare, select, clamp, convert, ...): filled as each op's Constraints move here from
 * graph/lower/elementwise.c. */
#include "graph/ops/family.h"

const hlx_op_rules_t hlx_op_rules_elementwise[] = {
    {HLX_OP_UNKNOWN, NULL, NULL},
};
