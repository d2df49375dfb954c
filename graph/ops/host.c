/* The rules of host ops (infeed, outfeed, custom_call): filled as each op's Constraints move here from
 * graph/lower/host.c. */
#include "graph/ops/family.h"

const hlx_op_rules_t hlx_op_rules_host[] = {
    {HLX_OP_UNKNOWN, NULL, NULL},
};
