/* The rules of layout ops (broadcast_in_dim, transpose, reshape, slice, pad, concatenate, iota, dynamic slices, ...): filled as each op's Constraints move here from
 * graph/lower/data_movement.c. */
#include "graph/ops/family.h"

const hlx_op_rules_t hlx_op_rules_data_movement[] = {
    {HLX_OP_UNKNOWN, NULL, NULL},
};
