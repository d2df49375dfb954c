/* The rules of sort and top_k: filled as each op's Constraints move here from
 * graph/lower/sort.c. */
#include "graph/ops/family.h"

const hlx_op_rules_t hlx_op_rules_sort[] = {
    {HLX_OP_UNKNOWN, NULL, NULL},
};
