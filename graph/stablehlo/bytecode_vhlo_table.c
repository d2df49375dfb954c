/* The VHLO operations hlx reads and the inherent attributes of each, in the
 * order their properties are written: sorted by name, the order MLIR's
 * generated readers use. Every VHLO attribute is required, so a property is
 * a plain attribute reference. tests/graph/bytecode_test.cc checks that
 * every list is sorted. */
#include <string.h>

#include "graph/stablehlo/bytecode_convert.h"

#define ATTRS(name, ...) static const char* const name[] = {__VA_ARGS__, NULL}
ATTRS(kAllGather, "all_gather_dim", "channel_id", "replica_groups",
      "use_global_device_ids");
ATTRS(kAllReduce, "channel_id", "replica_groups", "use_global_device_ids");
ATTRS(kAllToAll, "channel_id", "concat_dimension", "replica_groups",
      "split_count", "split_dimension");
ATTRS(kBatchNorm, "epsilon", "feature_index");
ATTRS(kBroadcastInDim, "broadcast_dimensions");
ATTRS(kBroadcast, "broadcast_sizes");
ATTRS(kCall, "callee");
ATTRS(kCholesky, "lower");
ATTRS(kCollectiveBroadcast, "channel_id", "replica_groups");
ATTRS(kCollectivePermute, "channel_id", "source_target_pairs");
ATTRS(kCompare, "compare_type", "comparison_direction");
ATTRS(kComposite, "composite_attributes", "decomposition", "name", "version");
ATTRS(kDimension, "dimension");
ATTRS(kConstant, "value");
#define CONV_ATTRS(...)                                                     \
  "batch_group_count", "feature_group_count", "input_batch_dimension",      \
      "input_feature_dimension", "input_spatial_dimensions",                \
      "kernel_input_feature_dimension", "kernel_output_feature_dimension",  \
      "kernel_spatial_dimensions", "lhs_dilation", "output_batch_dimension", \
      "output_feature_dimension", "output_spatial_dimensions", __VA_ARGS__  \
      "precision_config", "rhs_dilation", "window_reversal", "window_strides"
ATTRS(kConvolution, CONV_ATTRS("padding", ));
ATTRS(kDynamicConv2, CONV_ATTRS());
#undef CONV_ATTRS
ATTRS(kReplicaGroups, "replica_groups");
ATTRS(kCustomCall, "api_version", "backend_config", "call_target_name",
      "called_computations", "has_side_effect", "operand_layouts",
      "output_operand_aliases", "result_layouts");
ATTRS(kDotGeneral, "lhs_batching_dimensions", "lhs_contracting_dimensions",
      "precision_config", "rhs_batching_dimensions", "rhs_contracting_dimensions");
ATTRS(kDotGeneral2, "accumulation_type", "allow_imprecise_accumulation",
      "lhs_batching_dimensions", "lhs_component_count",
      "lhs_contracting_dimensions", "lhs_precision_type",
      "num_primitive_operations", "precision_config", "rhs_batching_dimensions",
      "rhs_component_count", "rhs_contracting_dimensions", "rhs_precision_type");
ATTRS(kPrecision, "precision_config");
ATTRS(kDynamicBroadcast, "broadcast_dimensions", "known_expanding_dimensions",
      "known_nonexpanding_dimensions");
ATTRS(kDynamicGather, "collapsed_slice_dims", "index_vector_dim",
      "indices_are_sorted", "offset_dims", "start_index_map");
ATTRS(kDynamicGather2, "collapsed_slice_dims", "index_vector_dim",
      "indices_are_sorted", "offset_dims", "operand_batching_dims",
      "start_index_map", "start_indices_batching_dims");
ATTRS(kIota, "iota_dimension");
ATTRS(kSliceSizes, "slice_sizes");
ATTRS(kEinsum, "einsum_config");
ATTRS(kAccuracy, "result_accuracy");
ATTRS(kFft, "fft_length", "fft_type");
ATTRS(kFunc, "arg_attrs", "function_type", "res_attrs", "sym_name",
      "sym_visibility");
ATTRS(kGather, "collapsed_slice_dims", "index_vector_dim", "indices_are_sorted",
      "offset_dims", "slice_sizes", "start_index_map");
ATTRS(kGather2, "collapsed_slice_dims", "index_vector_dim", "indices_are_sorted",
      "offset_dims", "operand_batching_dims", "slice_sizes", "start_index_map",
      "start_indices_batching_dims");
ATTRS(kIndex, "index");
ATTRS(kInfeed, "infeed_config", "layout");
ATTRS(kDimensions, "dimensions");
ATTRS(kOutfeed, "outfeed_config");
ATTRS(kPad, "edge_padding_high", "edge_padding_low", "interior_padding");
ATTRS(kSendRecv, "channel_id", "channel_type", "is_host_transfer");
ATTRS(kReducePrecision, "exponent_bits", "mantissa_bits");
ATTRS(kReduceScatter, "channel_id", "replica_groups", "scatter_dimension",
      "use_global_device_ids");
ATTRS(kReduceWindow, "base_dilations", "padding", "window_dilations",
      "window_dimensions", "window_strides");
ATTRS(kRngBitGenerator, "rng_algorithm");
ATTRS(kRng, "rng_distribution");
ATTRS(kScatter, "index_vector_dim", "indices_are_sorted", "inserted_window_dims",
      "scatter_dims_to_operand_dims", "unique_indices", "update_window_dims");
ATTRS(kScatter2, "index_vector_dim", "indices_are_sorted", "input_batching_dims",
      "inserted_window_dims", "scatter_dims_to_operand_dims",
      "scatter_indices_batching_dims", "unique_indices", "update_window_dims");
ATTRS(kSelectAndScatter, "padding", "window_dimensions", "window_strides");
ATTRS(kSlice, "limit_indices", "start_indices", "strides");
ATTRS(kSort, "dimension", "is_stable");
ATTRS(kTorchIndexSelect, "batch_dims", "dim");
ATTRS(kTranspose, "permutation");
ATTRS(kTriangularSolve, "left_side", "lower", "transpose_a", "unit_diagonal");
#undef ATTRS

/* Sorted by name. */
static const hlx_vhlo_op_t kOps[] = {
    {"abs_v1", NULL, false},
    {"add_v1", NULL, false},
    {"after_all_v1", NULL, false},
    {"all_gather_v1", kAllGather, false},
    {"all_gather_v2", kAllGather, false},
    {"all_reduce_v1", kAllReduce, false},
    {"all_reduce_v2", kAllReduce, false},
    {"all_to_all_v1", kAllToAll, false},
    {"all_to_all_v2", kAllToAll, false},
    {"and_v1", NULL, false},
    {"atan2_v1", NULL, false},
    {"batch_norm_grad_v1", kBatchNorm, false},
    {"batch_norm_inference_v1", kBatchNorm, false},
    {"batch_norm_training_v1", kBatchNorm, false},
    {"bitcast_convert_v1", NULL, false},
    {"broadcast_in_dim_v1", kBroadcastInDim, false},
    {"broadcast_v1", kBroadcast, false},
    {"call_v1", kCall, false},
    {"case_v1", NULL, false},
    {"cbrt_v1", NULL, false},
    {"cbrt_v2", kAccuracy, false},
    {"ceil_v1", NULL, false},
    {"cholesky_v1", kCholesky, false},
    {"clamp_v1", NULL, false},
    {"collective_broadcast_v1", kCollectiveBroadcast, false},
    {"collective_permute_v1", kCollectivePermute, false},
    {"compare_v1", kCompare, false},
    {"complex_v1", NULL, false},
    {"composite_v1", kComposite, false},
    {"concatenate_v1", kDimension, false},
    {"constant_v1", kConstant, false},
    {"convert_v1", NULL, false},
    {"convolution_v1", kConvolution, false},
    {"cosine_v1", NULL, false},
    {"cosine_v2", kAccuracy, false},
    {"count_leading_zeros_v1", NULL, false},
    {"create_token_v1", NULL, false},
    {"cross-replica-sum_v1", kReplicaGroups, false},
    {"custom_call_v1", kCustomCall, false},
    {"divide_v1", NULL, false},
    {"dot_general_v1", kDotGeneral, false},
    {"dot_general_v2", kDotGeneral2, false},
    {"dot_v1", kPrecision, false},
    {"dynamic_broadcast_in_dim_v1", kDynamicBroadcast, false},
    {"dynamic_conv_v1", kConvolution, false},
    {"dynamic_conv_v2", kDynamicConv2, false},
    {"dynamic_gather_v1", kDynamicGather, false},
    {"dynamic_gather_v2", kDynamicGather2, false},
    {"dynamic_iota_v1", kIota, false},
    {"dynamic_pad_v1", NULL, false},
    {"dynamic_reshape_v1", NULL, false},
    {"dynamic_slice_v1", kSliceSizes, false},
    {"dynamic_update_slice_v1", NULL, false},
    {"einsum_v1", kEinsum, false},
    {"exponential_minus_one_v1", NULL, false},
    {"exponential_minus_one_v2", kAccuracy, false},
    {"exponential_v1", NULL, false},
    {"exponential_v2", kAccuracy, false},
    {"fft_v1", kFft, false},
    {"floor_v1", NULL, false},
    {"func_v1", kFunc, false},
    {"gather_v1", kGather, false},
    {"gather_v2", kGather2, false},
    {"get_dimension_size_v1", kDimension, false},
    {"get_tuple_element_v1", kIndex, false},
    {"if_v1", NULL, false},
    {"imag_v1", NULL, false},
    {"infeed_v1", kInfeed, false},
    {"iota_v1", kIota, false},
    {"is_finite_v1", NULL, false},
    {"log_plus_one_v1", NULL, false},
    {"log_plus_one_v2", kAccuracy, false},
    {"log_v1", NULL, false},
    {"log_v2", kAccuracy, false},
    {"logistic_v1", NULL, false},
    {"logistic_v2", kAccuracy, false},
    {"map_v1", kDimensions, false},
    {"maximum_v1", NULL, false},
    {"minimum_v1", NULL, false},
    {"multiply_v1", NULL, false},
    {"negate_v1", NULL, false},
    {"not_v1", NULL, false},
    {"optimization_barrier_v1", NULL, false},
    {"or_v1", NULL, false},
    {"outfeed_v1", kOutfeed, false},
    {"pad_v1", kPad, false},
    {"partition_id_v1", NULL, false},
    {"popcnt_v1", NULL, false},
    {"power_v1", NULL, false},
    {"real_dynamic_slice_v1", NULL, false},
    {"real_v1", NULL, false},
    {"recv_v1", kSendRecv, false},
    {"reduce_precision_v1", kReducePrecision, false},
    {"reduce_scatter_v1", kReduceScatter, false},
    {"reduce_v1", kDimensions, false},
    {"reduce_window_v1", kReduceWindow, false},
    {"remainder_v1", NULL, false},
    {"replica_id_v1", NULL, false},
    {"reshape_v1", NULL, false},
    {"return_v1", NULL, false},
    {"reverse_v1", kDimensions, false},
    {"rng_bit_generator_v1", kRngBitGenerator, false},
    {"rng_v1", kRng, false},
    {"round_nearest_afz_v1", NULL, false},
    {"round_nearest_even_v1", NULL, false},
    {"rsqrt_v1", NULL, false},
    {"rsqrt_v2", kAccuracy, false},
    {"scatter_v1", kScatter, true},
    {"scatter_v2", kScatter2, true},
    {"select_and_scatter_v1", kSelectAndScatter, false},
    {"select_v1", NULL, false},
    {"send_v1", kSendRecv, false},
    {"set_dimension_size_v1", kDimension, false},
    {"shift_left_v1", NULL, false},
    {"shift_right_arithmetic_v1", NULL, false},
    {"shift_right_logical_v1", NULL, false},
    {"sign_v1", NULL, false},
    {"sine_v1", NULL, false},
    {"sine_v2", kAccuracy, false},
    {"slice_v1", kSlice, false},
    {"sort_v1", kSort, false},
    {"sqrt_v1", NULL, false},
    {"sqrt_v2", kAccuracy, false},
    {"subtract_v1", NULL, false},
    {"tan_v1", NULL, false},
    {"tan_v2", kAccuracy, false},
    {"tanh_v1", NULL, false},
    {"tanh_v2", kAccuracy, false},
    {"torch_index_select_v1", kTorchIndexSelect, false},
    {"transpose_v1", kTranspose, false},
    {"triangular_solve_v1", kTriangularSolve, false},
    {"tuple_v1", NULL, false},
    {"unary_einsum_v1", kEinsum, false},
    {"uniform_dequantize_v1", NULL, false},
    {"uniform_quantize_v1", NULL, false},
    {"while_v1", NULL, false},
    {"xor_v1", NULL, false},
};

const hlx_vhlo_op_t* hlx_vhlo_ops(int32_t* n) {
  *n = (int32_t)(sizeof kOps / sizeof kOps[0]);
  return kOps;
}

const hlx_vhlo_op_t* hlx_vhlo_op_find(const char* name, size_t len) {
  size_t lo = 0, hi = sizeof kOps / sizeof kOps[0];
  while (lo < hi) { /* binary search over the sorted names */
    size_t mid = (lo + hi) / 2;
    const char* k = kOps[mid].name;
    size_t kn = strlen(k);
    int c = memcmp(k, name, kn < len ? kn : len);
    if (c == 0) c = kn < len ? -1 : kn > len ? 1 : 0;
    if (c == 0) return &kOps[mid];
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}
