/* The rules of random numbers (rng, rng_bit_generator): filled as each op's Constraints move here from
 * graph/lower/rng.c. */
#include "graph/ops/family.h"

const hlx_op_rules_t hlx_op_rules_rng[] = {
    {HLX_OP_UNKNOWN, NULL, NULL},
};
