/* Lowering of the fft op family (filled in by its owner). */
#include "graph/lower_internal.h"

const hlx_lowering_t hlx_lowerings_fft[] = {
    {HLX_OP_UNKNOWN, NULL},
};
