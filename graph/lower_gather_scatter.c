/* Lowering of the gather_scatter op family (filled in by its owner). */
#include "graph/lower_internal.h"

const hlx_lowering_t hlx_lowerings_gather_scatter[] = {
    {HLX_OP_UNKNOWN, NULL},
};
