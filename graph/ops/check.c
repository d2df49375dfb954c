/* The rules of check ops (check.expect_*, interpreter probes): filled as each op's Constraints move here from
 * graph/lower/check.c. */
#include "graph/ops/family.h"

const hlx_op_rules_t hlx_op_rules_check[] = {
    {HLX_OP_UNKNOWN, NULL, NULL},
};
