/* The rules of control flow (if, case, while, ...): filled as each op's Constraints move here from
 * graph/lower/control_flow.c. */
#include "graph/ops/family.h"

const hlx_op_rules_t hlx_op_rules_control_flow[] = {
    {HLX_OP_UNKNOWN, NULL, NULL},
};
