/* Lowering of the map op family (filled in by its owner). */
#include "graph/lower_internal.h"

const hlx_lowering_t hlx_lowerings_map[] = {
    {HLX_OP_UNKNOWN, NULL},
};
