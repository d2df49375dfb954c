/* The op table: each HLO opcode, the hlx IR op it becomes and how its
 * attributes map to the IR's (StableHLO generic-form) attributes. The
 * importer (hlo_import*.c) and the printer (hlo_print*.c) both read it, so
 * one entry defines both directions. */
#include <ctype.h>
#include <string.h>

#include "graph/hlo/hlo_internal.h"

#define END \
  { NULL, NULL, HA_IGNORE, NULL, false, NULL }
#define CHANNEL_ATTRS                                                       \
  {"channel_id", "channel_handle", HA_CHANNEL, NULL, false, NULL},          \
      {"replica_groups", "replica_groups", HA_GROUPS, NULL, false, "{}"}, { \
    "use_global_device_ids", "use_global_device_ids", HA_UNIT_BOOL, NULL,   \
        false, NULL                                                         \
  }

static const hlo_attr_spec_t kNone[] = {END};
static const hlo_attr_spec_t kBroadcast[] = {
    {"dimensions", "broadcast_dimensions", HA_I64_LIST, NULL, false, "{}"},
    END};
static const hlo_attr_spec_t kTranspose[] = {
    {"dimensions", "permutation", HA_I64_LIST, NULL, true, NULL}, END};
static const hlo_attr_spec_t kDimensions[] = {
    {"dimensions", "dimensions", HA_I64_LIST, NULL, true, NULL}, END};
static const hlo_attr_spec_t kConcat[] = {
    {"dimensions", "dimension", HA_FIRST_I64, NULL, true, NULL}, END};
static const hlo_attr_spec_t kIota[] = {
    {"iota_dimension", "iota_dimension", HA_I64, NULL, true, NULL}, END};
static const hlo_attr_spec_t kGte[] = {
    {"index", "index", HA_I32, NULL, true, NULL}, END};
static const hlo_attr_spec_t kCompare[] = {
    {"direction", "comparison_direction", HA_ENUM, "comparison_direction", true,
     NULL},
    {"type", "compare_type", HA_ENUM, "comparison_type", false, NULL},
    END};
static const hlo_attr_spec_t kSlice[] = {
    {"slice", NULL, HA_SLICE, NULL, true, NULL}, END};
static const hlo_attr_spec_t kPad[] = {
    {"padding", NULL, HA_PADDING, NULL, true, NULL}, END};
static const hlo_attr_spec_t kDynSlice[] = {
    {"dynamic_slice_sizes", "slice_sizes", HA_I64_LIST, NULL, true, NULL}, END};
static const hlo_attr_spec_t kReducePrecision[] = {
    {"exponent_bits", "exponent_bits", HA_I32, NULL, true, NULL},
    {"mantissa_bits", "mantissa_bits", HA_I32, NULL, true, NULL},
    END};
static const hlo_attr_spec_t kFft[] = {
    {"fft_type", "fft_type", HA_ENUM, "fft_type", true, NULL},
    {"fft_length", "fft_length", HA_I64_LIST, NULL, true, NULL},
    END};
static const hlo_attr_spec_t kCholesky[] = {
    {"lower", "lower", HA_BOOL, NULL, false, "false"}, END};
static const hlo_attr_spec_t kTriangular[] = {
    {"left_side", "left_side", HA_BOOL, NULL, false, "false"},
    {"lower", "lower", HA_BOOL, NULL, false, "false"},
    {"unit_diagonal", "unit_diagonal", HA_BOOL, NULL, false, "false"},
    {"transpose_a", "transpose_a", HA_ENUM, "transpose", false, "NO_TRANSPOSE"},
    END};
static const hlo_attr_spec_t kBatchNorm[] = {
    {"epsilon", "epsilon", HA_F32, NULL, true, NULL},
    {"feature_index", "feature_index", HA_I64, NULL, true, NULL},
    END};
static const hlo_attr_spec_t kDot[] = {
    {"lhs_batch_dims", "lhs_batching_dimensions", HA_FIELD_LIST,
     "stablehlo.dot", false, "{}"},
    {"rhs_batch_dims", "rhs_batching_dimensions", HA_FIELD_LIST,
     "stablehlo.dot", false, "{}"},
    {"lhs_contracting_dims", "lhs_contracting_dimensions", HA_FIELD_LIST,
     "stablehlo.dot", false, "{}"},
    {"rhs_contracting_dims", "rhs_contracting_dimensions", HA_FIELD_LIST,
     "stablehlo.dot", false, "{}"},
    {"operand_precision", "precision_config", HA_PRECISION, NULL, false,
     "{default,default}"},
    {"algorithm", NULL, HA_IGNORE, NULL, false, NULL},
    END};
static const hlo_attr_spec_t kConv[] = {
    {"dim_labels", "dimension_numbers", HA_DIM_LABELS, NULL, true, NULL},
    {"window", NULL, HA_WINDOW, "conv", false, "{}"},
    {"feature_group_count", "feature_group_count", HA_I64, NULL, false, "1"},
    {"batch_group_count", "batch_group_count", HA_I64, NULL, false, "1"},
    {"operand_precision", "precision_config", HA_PRECISION, NULL, false,
     "{default,default}"},
    {"conv_kind", NULL, HA_IGNORE, NULL, false, NULL},
    END};
static const hlo_attr_spec_t kGather[] = {
    {"offset_dims", "offset_dims", HA_FIELD_LIST, "stablehlo.gather", true,
     NULL},
    {"collapsed_slice_dims", "collapsed_slice_dims", HA_FIELD_LIST,
     "stablehlo.gather", true, NULL},
    {"operand_batching_dims", "operand_batching_dims", HA_FIELD_LIST,
     "stablehlo.gather", false, "{}"},
    {"start_indices_batching_dims", "start_indices_batching_dims",
     HA_FIELD_LIST, "stablehlo.gather", false, "{}"},
    {"start_index_map", "start_index_map", HA_FIELD_LIST, "stablehlo.gather",
     true, NULL},
    {"index_vector_dim", "index_vector_dim", HA_FIELD_I64, "stablehlo.gather",
     true, NULL},
    {"slice_sizes", "slice_sizes", HA_I64_LIST, NULL, true, NULL},
    {"indices_are_sorted", "indices_are_sorted", HA_BOOL, NULL, false, "false"},
    END};
static const hlo_attr_spec_t kScatter[] = {
    {"update_window_dims", "update_window_dims", HA_FIELD_LIST,
     "stablehlo.scatter", true, NULL},
    {"inserted_window_dims", "inserted_window_dims", HA_FIELD_LIST,
     "stablehlo.scatter", true, NULL},
    {"input_batching_dims", "input_batching_dims", HA_FIELD_LIST,
     "stablehlo.scatter", false, "{}"},
    {"scatter_indices_batching_dims", "scatter_indices_batching_dims",
     HA_FIELD_LIST, "stablehlo.scatter", false, "{}"},
    {"scatter_dims_to_operand_dims", "scatter_dims_to_operand_dims",
     HA_FIELD_LIST, "stablehlo.scatter", true, NULL},
    {"index_vector_dim", "index_vector_dim", HA_FIELD_I64, "stablehlo.scatter",
     true, NULL},
    {"indices_are_sorted", "indices_are_sorted", HA_BOOL, NULL, false, "false"},
    {"unique_indices", "unique_indices", HA_BOOL, NULL, false, "false"},
    {"to_apply", NULL, HA_REGION, "unpack", true, NULL},
    END};
static const hlo_attr_spec_t kReduce[] = {
    {"dimensions", "dimensions", HA_I64_LIST, NULL, true, NULL},
    {"to_apply", NULL, HA_REGION, "unpack", true, NULL},
    END};
static const hlo_attr_spec_t kReduceWindow[] = {
    {"window", NULL, HA_WINDOW, "reduce_window", false, "{}"},
    {"to_apply", NULL, HA_REGION, "unpack", true, NULL},
    END};
static const hlo_attr_spec_t kSelectScatter[] = {
    {"window", NULL, HA_WINDOW, "select_and_scatter", false, "{}"},
    {"select", NULL, HA_REGION, "keep", true, NULL},
    {"scatter", NULL, HA_REGION, "keep", true, NULL},
    END};
static const hlo_attr_spec_t kSort[] = {
    {"dimensions", "dimension", HA_FIRST_I64, NULL, true, NULL},
    {"is_stable", "is_stable", HA_BOOL, NULL, false, "false"},
    {"to_apply", NULL, HA_REGION, "keep", true, NULL},
    END};
static const hlo_attr_spec_t kMap[] = {
    {"dimensions", "dimensions", HA_I64_LIST, NULL, false, NULL},
    {"to_apply", NULL, HA_REGION, "keep", true, NULL},
    END};
static const hlo_attr_spec_t kWhile[] = {
    {"condition", NULL, HA_REGION, "keep", true, NULL},
    {"body", NULL, HA_REGION, "keep", true, NULL},
    END};
static const hlo_attr_spec_t kRngBits[] = {
    {"algorithm", "rng_algorithm", HA_ENUM, "rng_algorithm", true, NULL}, END};
static const hlo_attr_spec_t kRng[] = {
    {"distribution", "rng_distribution", HA_ENUM, "rng_distribution", true,
     NULL},
    END};
static const hlo_attr_spec_t kDimSize[] = {
    {"dimensions", "dimension", HA_FIRST_I64, NULL, true, NULL}, END};
static const hlo_attr_spec_t kAllReduce[] = {
    CHANNEL_ATTRS,
    {"to_apply", NULL, HA_REGION, "keep", true, NULL},
    {"constrain_layout", NULL, HA_IGNORE, NULL, false, NULL},
    {"mode", NULL, HA_IGNORE, NULL, false, NULL},
    END};
static const hlo_attr_spec_t kReduceScatter[] = {
    {"dimensions", "scatter_dimension", HA_FIRST_I64, NULL, true, NULL},
    CHANNEL_ATTRS,
    {"to_apply", NULL, HA_REGION, "keep", true, NULL},
    {"constrain_layout", NULL, HA_IGNORE, NULL, false, NULL},
    {"mode", NULL, HA_IGNORE, NULL, false, NULL},
    END};
static const hlo_attr_spec_t kAllGather[] = {
    {"dimensions", "all_gather_dim", HA_FIRST_I64, NULL, true, NULL},
    CHANNEL_ATTRS,
    {"constrain_layout", NULL, HA_IGNORE, NULL, false, NULL},
    END};
static const hlo_attr_spec_t kAllToAll[] = {
    {"dimensions", NULL, HA_SPECIAL, NULL, false, NULL},
    CHANNEL_ATTRS,
    {"constrain_layout", NULL, HA_IGNORE, NULL, false, NULL},
    END};
static const hlo_attr_spec_t kPermute[] = {
    {"source_target_pairs", "source_target_pairs", HA_PAIRS, NULL, true, NULL},
    {"channel_id", "channel_handle", HA_CHANNEL, NULL, false, NULL},
    END};
static const hlo_attr_spec_t kCollBroadcast[] = {CHANNEL_ATTRS, END};
static const hlo_attr_spec_t kInfeed[] = {
    {"infeed_config", "infeed_config", HA_STRING, NULL, false, NULL}, END};
static const hlo_attr_spec_t kOutfeed[] = {
    {"outfeed_config", "outfeed_config", HA_STRING, NULL, false, NULL},
    {"outfeed_shape", NULL, HA_IGNORE, NULL, false, NULL},
    END};
static const hlo_attr_spec_t kTopK[] = {
    {"k", "k", HA_I64, NULL, true, NULL},
    {"largest", NULL, HA_SPECIAL, NULL, false, NULL},
    END};
static const hlo_attr_spec_t kCustomCall[] = {
    {"custom_call_target", "call_target_name", HA_STRING, NULL, true, NULL},
    {"backend_config", "backend_config", HA_JSON, NULL, false, NULL},
    {"custom_call_has_side_effect", "has_side_effect", HA_BOOL, NULL, false,
     NULL},
    {"api_version", NULL, HA_SPECIAL, NULL, false, NULL},
    {"called_computations", NULL, HA_SPECIAL, NULL, false, NULL},
    {"to_apply", NULL, HA_SPECIAL, NULL, false, NULL},
    {"operand_layout_constraints", NULL, HA_IGNORE, NULL, false, NULL},
    {"output_to_operand_aliasing", NULL, HA_IGNORE, NULL, false, NULL},
    {"schedule", NULL, HA_IGNORE, NULL, false, NULL},
    {"padding_type", NULL, HA_IGNORE, NULL, false, NULL},
    {"window", NULL, HA_IGNORE, NULL, false, NULL},
    {"dim_labels", NULL, HA_IGNORE, NULL, false, NULL},
    {"feature_group_count", NULL, HA_IGNORE, NULL, false, NULL},
    {"batch_group_count", NULL, HA_IGNORE, NULL, false, NULL},
    {"operand_precision", NULL, HA_IGNORE, NULL, false, NULL},
    {"literal", NULL, HA_IGNORE, NULL, false, NULL},
    END};
static const hlo_attr_spec_t kCall[] = {
    {"to_apply", NULL, HA_SPECIAL, NULL, true, NULL},
    {"is_composite", NULL, HA_IGNORE, NULL, false, NULL},
    END};
static const hlo_attr_spec_t kFusion[] = {
    {"calls", NULL, HA_SPECIAL, NULL, true, NULL},
    {"kind", NULL, HA_SPECIAL, NULL, true, NULL},
    {"output_to_operand_aliasing", NULL, HA_IGNORE, NULL, false, NULL},
    END};
static const hlo_attr_spec_t kConditional[] = {
    {"branch_computations", NULL, HA_SPECIAL, NULL, false, NULL},
    {"true_computation", NULL, HA_SPECIAL, NULL, false, NULL},
    {"false_computation", NULL, HA_SPECIAL, NULL, false, NULL},
    END};
static const hlo_attr_spec_t kCopyStart[] = {
    {"cross_program_prefetch_index", NULL, HA_IGNORE, NULL, false, NULL}, END};
static const hlo_attr_spec_t kAsync[] = {
    {"calls", NULL, HA_SPECIAL, NULL, true, NULL},
    {"output_to_operand_aliasing", NULL, HA_IGNORE, NULL, false, NULL},
    END};
static const hlo_attr_spec_t kReshape[] = {
    {"inferred_dimension", NULL, HA_IGNORE, NULL, false, NULL}, END};

#define S(h, ir, a) \
  { h, HLX_OP_##ir, HK_SIMPLE, a, false }
#define T(h, ir, a) \
  { h, HLX_OP_##ir, HK_SIMPLE, a, true }
#define X(h, ir, a) \
  { h, HLX_OP_##ir, HK_SPECIAL, a, false }
static const hlo_op_t kOps[] = {
    S("abs", ABS, kNone),
    S("add", ADD, kNone),
    S("and", AND, kNone),
    S("atan2", ATAN2, kNone),
    S("cbrt", CBRT, kNone),
    S("ceil", CEIL, kNone),
    S("clamp", CLAMP, kNone),
    S("complex", COMPLEX, kNone),
    S("cosine", COSINE, kNone),
    S("divide", DIVIDE, kNone),
    S("exponential", EXPONENTIAL, kNone),
    S("exponential-minus-one", EXPONENTIAL_MINUS_ONE, kNone),
    S("floor", FLOOR, kNone),
    S("imag", IMAG, kNone),
    S("is-finite", IS_FINITE, kNone),
    S("log", LOG, kNone),
    S("log-plus-one", LOG_PLUS_ONE, kNone),
    S("logistic", LOGISTIC, kNone),
    S("maximum", MAXIMUM, kNone),
    S("minimum", MINIMUM, kNone),
    S("multiply", MULTIPLY, kNone),
    S("negate", NEGATE, kNone),
    S("not", NOT, kNone),
    S("or", OR, kNone),
    S("popcnt", POPCNT, kNone),
    S("power", POWER, kNone),
    S("real", REAL, kNone),
    S("remainder", REMAINDER, kNone),
    S("round-nearest-afz", ROUND_NEAREST_AFZ, kNone),
    S("round-nearest-even", ROUND_NEAREST_EVEN, kNone),
    S("rsqrt", RSQRT, kNone),
    S("select", SELECT, kNone),
    S("shift-left", SHIFT_LEFT, kNone),
    S("shift-right-arithmetic", SHIFT_RIGHT_ARITHMETIC, kNone),
    S("shift-right-logical", SHIFT_RIGHT_LOGICAL, kNone),
    S("sign", SIGN, kNone),
    S("sine", SINE, kNone),
    S("sqrt", SQRT, kNone),
    S("subtract", SUBTRACT, kNone),
    S("tan", TAN, kNone),
    S("tanh", TANH, kNone),
    S("xor", XOR, kNone),
    S("count-leading-zeros", COUNT_LEADING_ZEROS, kNone),
    S("convert", CONVERT, kNone),
    S("bitcast-convert", BITCAST_CONVERT, kNone),
    S("reshape", RESHAPE, kReshape),
    S("tuple", TUPLE, kNone),
    S("after-all", AFTER_ALL, kNone),
    S("partition-id", PARTITION_ID, kNone),
    S("replica-id", REPLICA_ID, kNone),
    S("opt-barrier", OPTIMIZATION_BARRIER, kNone),
    S("erf", CHLO_ERF, kNone),
    S("acos", CHLO_ACOS, kNone),
    S("acosh", CHLO_ACOSH, kNone),
    S("asin", CHLO_ASIN, kNone),
    S("asinh", CHLO_ASINH, kNone),
    S("atanh", CHLO_ATANH, kNone),
    S("cosh", CHLO_COSH, kNone),
    S("sinh", CHLO_SINH, kNone),
    S("broadcast", BROADCAST_IN_DIM, kBroadcast),
    S("transpose", TRANSPOSE, kTranspose),
    S("reverse", REVERSE, kDimensions),
    S("concatenate", CONCATENATE, kConcat),
    S("iota", IOTA, kIota),
    S("get-tuple-element", GET_TUPLE_ELEMENT, kGte),
    S("compare", COMPARE, kCompare),
    S("slice", SLICE, kSlice),
    S("pad", PAD, kPad),
    S("dynamic-slice", DYNAMIC_SLICE, kDynSlice),
    S("dynamic-update-slice", DYNAMIC_UPDATE_SLICE, kNone),
    S("reduce-precision", REDUCE_PRECISION, kReducePrecision),
    S("fft", FFT, kFft),
    S("cholesky", CHOLESKY, kCholesky),
    S("triangular-solve", TRIANGULAR_SOLVE, kTriangular),
    S("batch-norm-inference", BATCH_NORM_INFERENCE, kBatchNorm),
    T("batch-norm-training", BATCH_NORM_TRAINING, kBatchNorm),
    T("batch-norm-grad", BATCH_NORM_GRAD, kBatchNorm),
    S("dot", DOT_GENERAL, kDot),
    S("convolution", CONVOLUTION, kConv),
    S("gather", GATHER, kGather),
    T("scatter", SCATTER, kScatter),
    T("reduce", REDUCE, kReduce),
    T("reduce-window", REDUCE_WINDOW, kReduceWindow),
    S("select-and-scatter", SELECT_AND_SCATTER, kSelectScatter),
    T("sort", SORT, kSort),
    S("map", MAP, kMap),
    S("while", WHILE, kWhile),
    T("rng-bit-generator", RNG_BIT_GENERATOR, kRngBits),
    S("get-dimension-size", GET_DIMENSION_SIZE, kDimSize),
    S("set-dimension-size", SET_DIMENSION_SIZE, kDimSize),
    T("all-reduce", ALL_REDUCE, kAllReduce),
    T("reduce-scatter", REDUCE_SCATTER, kReduceScatter),
    T("all-gather", ALL_GATHER, kAllGather),
    X("all-to-all", ALL_TO_ALL, kAllToAll),
    S("collective-permute", COLLECTIVE_PERMUTE, kPermute),
    S("collective-broadcast", COLLECTIVE_BROADCAST, kCollBroadcast),
    T("top-k", CHLO_TOP_K, kTopK),
    X("rng", RNG, kRng),
    X("infeed", INFEED, kInfeed),
    X("outfeed", OUTFEED, kOutfeed),
    X("custom-call", CUSTOM_CALL, kCustomCall),
    X("call", FUNC_CALL, kCall),
    X("fusion", FUNC_CALL, kFusion),
    X("conditional", CASE, kConditional),
    X("parameter", UNKNOWN, kNone),
    X("constant", CONSTANT, kNone),
    X("copy", UNKNOWN, kNone),
    X("bitcast", UNKNOWN, kNone),
    X("add-dependency", UNKNOWN, kNone),
    X("domain", UNKNOWN, kNone),
    X("all-reduce-start", ALL_REDUCE, kAllReduce),
    X("all-gather-start", ALL_GATHER, kAllGather),
    X("collective-permute-start", COLLECTIVE_PERMUTE, kPermute),
    X("copy-start", UNKNOWN, kCopyStart),
    X("async-start", FUNC_CALL, kAsync),
    X("all-reduce-done", UNKNOWN, kNone),
    X("all-gather-done", UNKNOWN, kNone),
    X("collective-permute-done", UNKNOWN, kNone),
    X("copy-done", UNKNOWN, kNone),
    X("async-update", UNKNOWN, kNone),
    X("async-done", UNKNOWN, kNone),
};
#undef S
#undef T
#undef X

const hlo_op_t* hlo_op_by_name(const char* s, size_t n) {
  for (size_t i = 0; i < sizeof kOps / sizeof kOps[0]; i++)
    if (strlen(kOps[i].hlo) == n && memcmp(kOps[i].hlo, s, n) == 0)
      return &kOps[i];
  return NULL;
}

const hlo_op_t* hlo_op_by_ir(hlx_opcode_t code) {
  if (code == HLX_OP_UNKNOWN) return NULL;
  for (size_t i = 0; i < sizeof kOps / sizeof kOps[0]; i++)
    if (kOps[i].ir == code) return &kOps[i];
  return NULL;
}

bool hlo_attr_ignored(const char* s, size_t n) {
  static const char* const kIgnored[] = {
      "metadata",
      "sharding",
      "frontend_attributes",
      "statistics",
      "origin",
      "control-predecessors",
      "parameter_replication",
      "backend_config",
      "result_accuracy",
      "execution_thread",
      "async_execution_thread",
  };
  for (size_t i = 0; i < sizeof kIgnored / sizeof kIgnored[0]; i++)
    if (strlen(kIgnored[i]) == n && memcmp(kIgnored[i], s, n) == 0) return true;
  return false;
}

/* ---- enums ------------------------------------------------------------------
 */
static const struct {
  const char* kind;
  const char* hlo;
  const char* ir;
} kEnums[] = {
    {"rng_distribution", "rng_uniform", "UNIFORM"},
    {"rng_distribution", "rng_normal", "NORMAL"},
    {"rng_algorithm", "rng_default", "DEFAULT"},
    {"rng_algorithm", "rng_three_fry", "THREE_FRY"},
    {"rng_algorithm", "rng_philox", "PHILOX"},
    {"precision", "default", "DEFAULT"},
    {"precision", "high", "HIGH"},
    {"precision", "highest", "HIGHEST"},
    {"comparison_direction", "EQ", "EQ"},
    {"comparison_direction", "NE", "NE"},
    {"comparison_direction", "GE", "GE"},
    {"comparison_direction", "GT", "GT"},
    {"comparison_direction", "LE", "LE"},
    {"comparison_direction", "LT", "LT"},
    {"comparison_type", "FLOAT", "FLOAT"},
    {"comparison_type", "TOTALORDER", "TOTALORDER"},
    {"comparison_type", "SIGNED", "SIGNED"},
    {"comparison_type", "UNSIGNED", "UNSIGNED"},
    {"fft_type", "FFT", "FFT"},
    {"fft_type", "IFFT", "IFFT"},
    {"fft_type", "RFFT", "RFFT"},
    {"fft_type", "IRFFT", "IRFFT"},
    {"transpose", "NO_TRANSPOSE", "NO_TRANSPOSE"},
    {"transpose", "TRANSPOSE", "TRANSPOSE"},
    {"transpose", "ADJOINT", "ADJOINT"},
};

const char* hlo_enum_to_ir(const char* kind, const char* word, size_t n,
                           char* buf, size_t buf_len) {
  (void)buf;
  (void)buf_len;
  for (size_t i = 0; i < sizeof kEnums / sizeof kEnums[0]; i++)
    if (strcmp(kEnums[i].kind, kind) == 0 && strlen(kEnums[i].hlo) == n &&
        memcmp(kEnums[i].hlo, word, n) == 0)
      return kEnums[i].ir;
  return NULL;
}

const char* hlo_enum_to_hlo(const char* kind, const char* value, char* buf,
                            size_t buf_len) {
  for (size_t i = 0; i < sizeof kEnums / sizeof kEnums[0]; i++)
    if (strcmp(kEnums[i].kind, kind) == 0 && strcmp(kEnums[i].ir, value) == 0)
      return kEnums[i].hlo;
  /* A value hlx does not know is printed as it is (lower-case for the
   * lower-case HLO spellings). */
  size_t i = 0;
  bool lower = strcmp(kind, "precision") == 0;
  for (; value[i] && i + 1 < buf_len; i++)
    buf[i] = lower ? (char)tolower((unsigned char)value[i]) : value[i];
  buf[i] = 0;
  return buf;
}
