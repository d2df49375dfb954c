/* Lowering of the linalg op family (filled in by its owner). */
#include "graph/lower_internal.h"

const hlx_lowering_t hlx_lowerings_linalg[] = {
    {HLX_OP_UNKNOWN, NULL},
};
