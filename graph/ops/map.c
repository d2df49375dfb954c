/* The rules of map: filled as each op's Constraints move here from
 * graph/lower/map.c. */
#include "graph/ops/family.h"

const hlx_op_rules_t hlx_op_rules_map[] = {
    {HLX_OP_UNKNOWN, NULL, NULL},
};
