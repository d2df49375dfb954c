/* The rules of window ops (reduce_window, select_and_scatter): filled as each op's Constraints move here from
 * graph/lower/window.c. */
#include "graph/ops/family.h"

const hlx_op_rules_t hlx_op_rules_window[] = {
    {HLX_OP_UNKNOWN, NULL, NULL},
};
