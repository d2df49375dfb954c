/* Lowering of the window op family (filled in by its owner). */
#include "graph/lower_internal.h"

const hlx_lowering_t hlx_lowerings_window[] = {
    {HLX_OP_UNKNOWN, NULL},
};
