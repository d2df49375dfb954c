/* The rules of quantization ops (uniform_quantize, uniform_dequantize): filled as each op's Constraints move here from
 * graph/lower/quant.c. */
#include "graph/ops/family.h"

const hlx_op_rules_t hlx_op_rules_quant[] = {
    {HLX_OP_UNKNOWN, NULL, NULL},
};
