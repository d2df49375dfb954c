/* The rules of linear algebra (cholesky, triangular_solve, batch norm, ...): filled as each op's Constraints move here from
 * graph/lower/linalg.c. */
#include "graph/ops/family.h"

const hlx_op_rules_t hlx_op_rules_linalg[] = {
    {HLX_OP_UNKNOWN, NULL, NULL},
};
