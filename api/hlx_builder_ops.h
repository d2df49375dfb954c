/* hlx builder: the ops beyond api/hlx.h's core set (XLA operation
 * semantics), and builder creation options. Included by api/hlx.h at the
 * end of its builder section; relies on its types.
 *
 * Same conventions as the core builder calls: arrays are borrowed for the
 * call, computations are copied, the result id goes to the last argument,
 * the first shape error is latched ("<op>: <rule>"). Ops with several
 * results (multi-operand sort, while over several values, batch norm
 * training/grad, rng_bit_generator, optimization_barrier of several
 * values) return one tuple value; take its parts with
 * hlx_builder_get_tuple_element. */
#ifndef HLX_API_HLX_BUILDER_OPS_H_
#define HLX_API_HLX_BUILDER_OPS_H_

#ifdef __cplusplus
extern "C" {
#endif

/* ---- creation options ---------------------------------------------------- */
typedef struct hlx_builder_options_t {
  size_t struct_size; /* set by hlx_builder_options_init */
  const char* name;   /* function name (copied); NULL or "" = "main" */
  /* true (default): XlaBuilder latching (the first error is kept, later
   * calls are no-ops returning it, build returns it). false: each failing
   * call returns its own error and leaves the builder usable. */
  bool latch_errors;
} hlx_builder_options_t;
void hlx_builder_options_init(hlx_builder_options_t* o);
/* options NULL = defaults. Ownership as hlx_builder_create. */
hlx_status_t hlx_builder_create_with_options(
    const hlx_builder_options_t* options, hlx_builder_t** out_builder);

/* ---- convolution --------------------------------------------------------- */
/* Which dimension of lhs/rhs/result holds what. num_spatial_dims entries of
 * each spatial array are used. */
typedef struct hlx_conv_dimension_numbers_t {
  int32_t num_spatial_dims;
  int64_t input_batch_dimension, input_feature_dimension;
  int64_t input_spatial_dimensions[HLX_MAX_DIMS];
  int64_t kernel_input_feature_dimension, kernel_output_feature_dimension;
  int64_t kernel_spatial_dimensions[HLX_MAX_DIMS];
  int64_t output_batch_dimension, output_feature_dimension;
  int64_t output_spatial_dimensions[HLX_MAX_DIMS];
} hlx_conv_dimension_numbers_t;
/* XLA's default layout: lhs/result [batch, feature, spatial...], rhs
 * [output feature, input feature, spatial...]. */
void hlx_conv_dimension_numbers_default(int32_t num_spatial_dims,
                                        hlx_conv_dimension_numbers_t* dn);

typedef enum hlx_padding_t {
  HLX_PADDING_VALID = 0, /* no padding: windows fully inside */
  HLX_PADDING_SAME = 1,  /* output spatial size = ceil(input / stride) */
} hlx_padding_t;

/* XLA ConvGeneralDilated. Arrays of dn->num_spatial_dims entries (padding:
 * 2 per dimension, (low, high) pairs); NULL = strides/dilations 1, padding
 * 0. feature_group_count, batch_group_count >= 1. Result element type is
 * lhs's. */
hlx_status_t hlx_builder_conv_general_dilated(
    hlx_builder_t* b, uint32_t lhs, uint32_t rhs, const int64_t* window_strides,
    const int64_t* padding, const int64_t* lhs_dilation,
    const int64_t* rhs_dilation, const hlx_conv_dimension_numbers_t* dn,
    int64_t feature_group_count, int64_t batch_group_count,
    uint32_t* out_value);
/* XLA ConvWithGeneralPadding: default dimension numbers, num_spatial =
 * rank - 2 entries in window_strides (NULL = 1) and 2 per dim in padding. */
hlx_status_t hlx_builder_conv_with_general_padding(
    hlx_builder_t* b, uint32_t lhs, uint32_t rhs, const int64_t* window_strides,
    const int64_t* padding, uint32_t* out_value);
/* XLA Conv: default dimension numbers, VALID or SAME padding. */
hlx_status_t hlx_builder_conv(hlx_builder_t* b, uint32_t lhs, uint32_t rhs,
                              const int64_t* window_strides,
                              hlx_padding_t padding, uint32_t* out_value);

/* ---- windows ------------------------------------------------------------- */
/* XLA ReduceWindowWithGeneralPadding: arrays of the operand's rank entries
 * (padding 2 per dim); NULL strides/dilations = 1, NULL padding = 0. The
 * computation is as for hlx_builder_reduce. */
hlx_status_t hlx_builder_reduce_window_general(
    hlx_builder_t* b, uint32_t operand, uint32_t init,
    const hlx_computation_t* computation, const int64_t* window_dimensions,
    const int64_t* window_strides, const int64_t* base_dilations,
    const int64_t* window_dilations, const int64_t* padding,
    uint32_t* out_value);
/* XLA variadic ReduceWindow: n operands of one shape with n rank-0 inits,
 * computation as for hlx_builder_reduce_variadic (n == 1: the result
 * tensor; n > 1: a tuple). */
hlx_status_t hlx_builder_reduce_window_variadic(
    hlx_builder_t* b, const uint32_t* operands, const uint32_t* inits,
    int32_t n, const hlx_computation_t* computation,
    const int64_t* window_dimensions, const int64_t* window_strides,
    const int64_t* base_dilations, const int64_t* window_dilations,
    const int64_t* padding, uint32_t* out_value);
/* XLA ReduceWindow with VALID / SAME padding. */
hlx_status_t hlx_builder_reduce_window(hlx_builder_t* b, uint32_t operand,
                                       uint32_t init,
                                       const hlx_computation_t* computation,
                                       const int64_t* window_dimensions,
                                       const int64_t* window_strides,
                                       hlx_padding_t padding,
                                       uint32_t* out_value);
/* XLA SelectAndScatterWithGeneralPadding: select (2 rank-0 -> pred) picks
 * one element per window of operand; source (one element per window)
 * values are combined into a result of operand's shape with scatter,
 * starting from init. */
hlx_status_t hlx_builder_select_and_scatter(
    hlx_builder_t* b, uint32_t operand, const hlx_computation_t* select,
    const int64_t* window_dimensions, const int64_t* window_strides,
    const int64_t* padding, uint32_t source, uint32_t init,
    const hlx_computation_t* scatter, uint32_t* out_value);

/* ---- map, sort, reverse ---------------------------------------------------- */
/* XLA Map: operands of one shape; computation takes n rank-0 values (the
 * operands' element types) and returns one rank-0 value. dimensions must
 * be 0..rank-1 in order (NULL/0 = all). */
hlx_status_t hlx_builder_map(hlx_builder_t* b, const uint32_t* operands,
                             int32_t n, const hlx_computation_t* computation,
                             const int64_t* dimensions, int32_t num_dims,
                             uint32_t* out_value);
/* XLA Sort: operands of one shape sorted together along dimension by
 * comparator (2n rank-0 parameters: lhs_0, rhs_0, lhs_1, rhs_1, ... ->
 * pred "less than"). dimension -1 = the last. n == 1: the sorted tensor;
 * n > 1: a tuple. */
hlx_status_t hlx_builder_sort(hlx_builder_t* b, const uint32_t* operands,
                              int32_t n, const hlx_computation_t* comparator,
                              int64_t dimension, bool is_stable,
                              uint32_t* out_value);
/* XLA variadic Reduce: n operands of one shape and n rank-0 inits (the
 * operands' element types) reduced together over `dimensions` by
 * computation (acc_0..acc_{n-1}, x_0..x_{n-1}) -> n rank-0 values. n == 1:
 * the reduced tensor; n > 1: a tuple. */
hlx_status_t hlx_builder_reduce_variadic(hlx_builder_t* b,
                                         const uint32_t* operands,
                                         const uint32_t* inits, int32_t n,
                                         const hlx_computation_t* computation,
                                         const int64_t* dimensions,
                                         int32_t num_dims,
                                         uint32_t* out_value);
/* XLA Rev: reverses the given dimensions. */
hlx_status_t hlx_builder_rev(hlx_builder_t* b, uint32_t operand,
                             const int64_t* dimensions, int32_t n,
                             uint32_t* out_value);

/* ---- control flow ---------------------------------------------------------- */
/* XLA While over n values: condition takes n parameters (the values'
 * shapes) and returns pred[]; body takes the same and returns n values of
 * the same shapes. n == 1: the final value; n > 1: a tuple. */
hlx_status_t hlx_builder_while(hlx_builder_t* b,
                               const hlx_computation_t* condition,
                               const hlx_computation_t* body,
                               const uint32_t* init, int32_t n,
                               uint32_t* out_value);
/* XLA Conditional (if): pred is pred[]; true_computation takes one
 * parameter of true_operand's shape, false_computation one of
 * false_operand's; both return values of the same shapes (one result:
 * that value; several: a tuple). */
hlx_status_t hlx_builder_conditional(hlx_builder_t* b, uint32_t pred,
                                     uint32_t true_operand,
                                     const hlx_computation_t* true_computation,
                                     uint32_t false_operand,
                                     const hlx_computation_t* false_computation,
                                     uint32_t* out_value);
/* XLA Conditional (case): branch_index is s32[]; out-of-range indices run
 * the last branch. branch i takes one parameter of operands[i]'s shape. */
hlx_status_t hlx_builder_case(hlx_builder_t* b, uint32_t branch_index,
                              const hlx_computation_t* const* branches,
                              const uint32_t* operands, int32_t n,
                              uint32_t* out_value);
/* XLA Call: computation applied to n operands (its parameters' shapes);
 * the computation is inlined as a region-free sequence of ops. One
 * result: that value; several: a tuple. */
hlx_status_t hlx_builder_call(hlx_builder_t* b,
                              const hlx_computation_t* computation,
                              const uint32_t* operands, int32_t n,
                              uint32_t* out_value);

/* ---- gather / scatter / dynamic slices ------------------------------------ */
typedef struct hlx_gather_dimension_numbers_t {
  const int64_t* offset_dims;
  int32_t num_offset_dims;
  const int64_t* collapsed_slice_dims;
  int32_t num_collapsed_slice_dims;
  const int64_t* start_index_map;
  int32_t num_start_index_map;
  int64_t index_vector_dim;
  const int64_t* operand_batching_dims; /* may be NULL/0 */
  int32_t num_operand_batching_dims;
  const int64_t* start_indices_batching_dims;
  int32_t num_start_indices_batching_dims;
} hlx_gather_dimension_numbers_t;
/* XLA Gather; slice_sizes has operand rank entries. */
hlx_status_t hlx_builder_gather(hlx_builder_t* b, uint32_t operand,
                                uint32_t start_indices,
                                const hlx_gather_dimension_numbers_t* dn,
                                const int64_t* slice_sizes, int32_t num_sizes,
                                bool indices_are_sorted, uint32_t* out_value);

typedef struct hlx_scatter_dimension_numbers_t {
  const int64_t* update_window_dims;
  int32_t num_update_window_dims;
  const int64_t* inserted_window_dims;
  int32_t num_inserted_window_dims;
  const int64_t* scatter_dims_to_operand_dims;
  int32_t num_scatter_dims_to_operand_dims;
  int64_t index_vector_dim;
  const int64_t* input_batching_dims; /* may be NULL/0 */
  int32_t num_input_batching_dims;
  const int64_t* scatter_indices_batching_dims;
  int32_t num_scatter_indices_batching_dims;
} hlx_scatter_dimension_numbers_t;
/* XLA Scatter (one operand): result has operand's shape; update_computation
 * (2 rank-0 -> 1 rank-0 of the element type) combines the current and the
 * update value. */
hlx_status_t hlx_builder_scatter(hlx_builder_t* b, uint32_t operand,
                                 uint32_t scatter_indices, uint32_t updates,
                                 const hlx_computation_t* update_computation,
                                 const hlx_scatter_dimension_numbers_t* dn,
                                 bool indices_are_sorted, bool unique_indices,
                                 uint32_t* out_value);
/* XLA DynamicSlice: start_indices are n (= operand rank) rank-0 integer
 * values (clamped at run time so the slice fits); slice_sizes n entries. */
hlx_status_t hlx_builder_dynamic_slice(hlx_builder_t* b, uint32_t operand,
                                       const uint32_t* start_indices,
                                       const int64_t* slice_sizes, int32_t n,
                                       uint32_t* out_value);
/* XLA DynamicUpdateSlice: update (operand's type, not larger) written at
 * the clamped start indices (n = operand rank rank-0 integers). */
hlx_status_t hlx_builder_dynamic_update_slice(hlx_builder_t* b,
                                              uint32_t operand,
                                              uint32_t update,
                                              const uint32_t* start_indices,
                                              int32_t n, uint32_t* out_value);

/* ---- misc ------------------------------------------------------------------ */
/* XLA Collapse: merges the consecutive, in-order dimensions into one. */
hlx_status_t hlx_builder_collapse(hlx_builder_t* b, uint32_t operand,
                                  const int64_t* dimensions, int32_t n,
                                  uint32_t* out_value);
/* XLA Reshape(operand, dimensions, new_sizes): dimensions (a permutation
 * of the operand's n = rank dimensions, slowest first) gives the order in
 * which the operand is collapsed before it is refined into new_sizes
 * (hlx_builder_reshape is the in-order case). */
hlx_status_t hlx_builder_reshape_with_dimensions(hlx_builder_t* b,
                                                 uint32_t operand,
                                                 const int64_t* dimensions,
                                                 int32_t n,
                                                 const int64_t* new_sizes,
                                                 int32_t rank,
                                                 uint32_t* out_value);
/* XLA BitcastConvertType: same bit width -> same shape; otherwise the
 * last dimension is added (narrower type) or removed (wider type). */
hlx_status_t hlx_builder_bitcast_convert(hlx_builder_t* b, uint32_t operand,
                                         hlx_element_type_t new_type,
                                         uint32_t* out_value);
/* XLA ReducePrecision: exponent_bits >= 1, mantissa_bits >= 0. */
hlx_status_t hlx_builder_reduce_precision(hlx_builder_t* b, uint32_t operand,
                                          int32_t exponent_bits,
                                          int32_t mantissa_bits,
                                          uint32_t* out_value);
/* XLA GetDimensionSize: an s32[] with the size of `dimension` (its
 * dynamic size after hlx_builder_set_dimension_size: that size's id). */
hlx_status_t hlx_builder_get_dimension_size(hlx_builder_t* b,
                                            uint32_t operand,
                                            int64_t dimension,
                                            uint32_t* out_value);
/* XLA SetDimensionSize: gives dimension `dimension` of operand the
 * run-time size `size` (an s32[] value, constant or computed; 0..the
 * static size). The result has the operand's static shape (as
 * hlx_builder_get_desc reports) and a new id that carries the size: XLA's
 * "padded values will be ignored by downstream reduction ops" holds for
 * hlx_builder_reduce / _reduce_variadic (elements beyond the size are
 * replaced by the init value, so init must be the reducer's identity, as
 * XLA requires), and hlx_builder_get_dimension_size returns the size.
 * hlx shapes are static, so that is as far as dynamic sizes go: any other
 * op, a build root, or a reduce that keeps a dynamic dimension rejects
 * the value with an error saying so. A constant size equal to the static
 * size is no dynamic size (the result is an ordinary value). */
hlx_status_t hlx_builder_set_dimension_size(hlx_builder_t* b, uint32_t operand,
                                            uint32_t size, int64_t dimension,
                                            uint32_t* out_value);
/* XLA OptimizationBarrier: the values unchanged (n == 1: that value;
 * n > 1: a tuple); nothing moves across it. */
hlx_status_t hlx_builder_optimization_barrier(hlx_builder_t* b,
                                              const uint32_t* operands,
                                              int32_t n, uint32_t* out_value);

/* ---- collectives ------------------------------------------------------------
 * Replica groups: num_groups rows of group_size process ids, row-major
 * (NULL/0: all processes form one group). channel_id 0 = none; > 0 gives
 * StableHLO's process grouping for a channel (all_reduce, all_gather,
 * reduce_scatter: cross replica and partition; all_to_all,
 * collective_permute: cross partition). Run such programs with
 * hlx_compile_options_t.num_replicas > 1. */
/* XLA AllReduce: computation as for hlx_builder_reduce. */
hlx_status_t hlx_builder_all_reduce(hlx_builder_t* b, uint32_t operand,
                                    const hlx_computation_t* computation,
                                    const int64_t* replica_groups,
                                    int32_t num_groups, int32_t group_size,
                                    int64_t channel_id, uint32_t* out_value);
/* XLA AllReduce of a tuple: n operands of one element type reduced
 * together (n == 1: that result; n > 1: a tuple). */
hlx_status_t hlx_builder_all_reduce_variadic(
    hlx_builder_t* b, const uint32_t* operands, int32_t n,
    const hlx_computation_t* computation, const int64_t* replica_groups,
    int32_t num_groups, int32_t group_size, int64_t channel_id,
    uint32_t* out_value);
/* XLA CrossReplicaSum: AllReduce with addition. */
hlx_status_t hlx_builder_cross_replica_sum(hlx_builder_t* b, uint32_t operand,
                                           const int64_t* replica_groups,
                                           int32_t num_groups,
                                           int32_t group_size,
                                           uint32_t* out_value);
/* XLA AllGather: all_gather_dimension grows shard_count times (shard_count
 * = group_size when groups are given). */
hlx_status_t hlx_builder_all_gather(hlx_builder_t* b, uint32_t operand,
                                    int64_t all_gather_dimension,
                                    int64_t shard_count,
                                    const int64_t* replica_groups,
                                    int32_t num_groups, int32_t group_size,
                                    int64_t channel_id, uint32_t* out_value);
/* XLA ReduceScatter: scatter_dimension shrinks shard_count times. */
hlx_status_t hlx_builder_reduce_scatter(hlx_builder_t* b, uint32_t operand,
                                        const hlx_computation_t* computation,
                                        int64_t scatter_dimension,
                                        int64_t shard_count,
                                        const int64_t* replica_groups,
                                        int32_t num_groups, int32_t group_size,
                                        int64_t channel_id,
                                        uint32_t* out_value);
/* XLA AllToAll: split_dimension shrinks and concat_dimension grows
 * split_count times. */
hlx_status_t hlx_builder_all_to_all(hlx_builder_t* b, uint32_t operand,
                                    int64_t split_dimension,
                                    int64_t concat_dimension,
                                    int64_t split_count,
                                    const int64_t* replica_groups,
                                    int32_t num_groups, int32_t group_size,
                                    uint32_t* out_value);
/* Tuple forms of AllGather, ReduceScatter and AllToAll: n (1..64)
 * operands, each treated as by the single-operand call (rank and
 * dimension rules hold for every operand; ReduceScatter's operands share
 * the computation's element type). n == 1: that result; n > 1: a tuple.
 * all_gather and all_to_all are one StableHLO op with n operands;
 * reduce_scatter (single-operand in StableHLO) is one op per operand. */
hlx_status_t hlx_builder_all_gather_variadic(
    hlx_builder_t* b, const uint32_t* operands, int32_t n,
    int64_t all_gather_dimension, int64_t shard_count,
    const int64_t* replica_groups, int32_t num_groups, int32_t group_size,
    int64_t channel_id, uint32_t* out_value);
hlx_status_t hlx_builder_reduce_scatter_variadic(
    hlx_builder_t* b, const uint32_t* operands, int32_t n,
    const hlx_computation_t* computation, int64_t scatter_dimension,
    int64_t shard_count, const int64_t* replica_groups, int32_t num_groups,
    int32_t group_size, int64_t channel_id, uint32_t* out_value);
hlx_status_t hlx_builder_all_to_all_variadic(
    hlx_builder_t* b, const uint32_t* operands, int32_t n,
    int64_t split_dimension, int64_t concat_dimension, int64_t split_count,
    const int64_t* replica_groups, int32_t num_groups, int32_t group_size,
    uint32_t* out_value);
/* XLA CollectivePermute: num_pairs (source, target) pairs, row-major;
 * processes that are no pair's target get zeros. */
hlx_status_t hlx_builder_collective_permute(hlx_builder_t* b, uint32_t operand,
                                            const int64_t* source_target_pairs,
                                            int32_t num_pairs,
                                            int64_t channel_id,
                                            uint32_t* out_value);
/* XLA ReplicaId: this process's replica id as a u32[]. */
hlx_status_t hlx_builder_replica_id(hlx_builder_t* b, uint32_t* out_value);

/* ---- linear algebra, batch norm, fft --------------------------------------- */
/* XLA Cholesky: a is [..., n, n] float/complex; lower picks which triangle
 * is read and written (the other is undefined in the result). */
hlx_status_t hlx_builder_cholesky(hlx_builder_t* b, uint32_t a, bool lower,
                                  uint32_t* out_value);
typedef enum hlx_triangular_transpose_t {
  HLX_TRIANGULAR_NO_TRANSPOSE = 0,
  HLX_TRIANGULAR_TRANSPOSE = 1,
  HLX_TRIANGULAR_ADJOINT = 2,
} hlx_triangular_transpose_t;
/* XLA TriangularSolve: solves op(a) x = b (left_side) or x op(a) = b for x
 * (b's shape); a is [..., m, m] (m = b's rows when left_side, else its
 * columns), batch dimensions equal. */
hlx_status_t hlx_builder_triangular_solve(
    hlx_builder_t* b, uint32_t a, uint32_t rhs, bool left_side, bool lower,
    bool unit_diagonal, hlx_triangular_transpose_t transpose_a,
    uint32_t* out_value);
/* XLA BatchNormInference: scale/offset/mean/variance are rank 1 of the
 * feature dimension's size, operand's float type. */
hlx_status_t hlx_builder_batch_norm_inference(
    hlx_builder_t* b, uint32_t operand, uint32_t scale, uint32_t offset,
    uint32_t mean, uint32_t variance, float epsilon, int64_t feature_index,
    uint32_t* out_value);
/* XLA BatchNormTraining: a tuple (output, batch_mean, batch_var). */
hlx_status_t hlx_builder_batch_norm_training(hlx_builder_t* b,
                                             uint32_t operand, uint32_t scale,
                                             uint32_t offset, float epsilon,
                                             int64_t feature_index,
                                             uint32_t* out_value);
/* XLA BatchNormGrad: a tuple (grad_operand, grad_scale, grad_offset). */
hlx_status_t hlx_builder_batch_norm_grad(hlx_builder_t* b, uint32_t operand,
                                         uint32_t scale, uint32_t mean,
                                         uint32_t variance,
                                         uint32_t grad_output, float epsilon,
                                         int64_t feature_index,
                                         uint32_t* out_value);
typedef enum hlx_fft_type_t {
  HLX_FFT_FFT = 0,   /* complex -> complex */
  HLX_FFT_IFFT = 1,  /* complex -> complex, inverse */
  HLX_FFT_RFFT = 2,  /* real -> complex, last dim L/2 + 1 */
  HLX_FFT_IRFFT = 3, /* complex -> real, last dim L */
} hlx_fft_type_t;
/* XLA Fft over the innermost n (1..3) dimensions of lengths fft_length. */
hlx_status_t hlx_builder_fft(hlx_builder_t* b, uint32_t operand,
                             hlx_fft_type_t fft_type,
                             const int64_t* fft_length, int32_t n,
                             uint32_t* out_value);

/* ---- random numbers ------------------------------------------------------- */
/* XLA RngUniform: shape *desc (its element type must be a's and b's; a, b
 * rank 0), values in [a, b). XLA RngNormal: mean mu, deviation sigma. */
hlx_status_t hlx_builder_rng_uniform(hlx_builder_t* b, uint32_t a, uint32_t bv,
                                     const hlx_tensor_desc_t* desc,
                                     uint32_t* out_value);
hlx_status_t hlx_builder_rng_normal(hlx_builder_t* b, uint32_t mu,
                                    uint32_t sigma,
                                    const hlx_tensor_desc_t* desc,
                                    uint32_t* out_value);
typedef enum hlx_rng_algorithm_t {
  HLX_RNG_DEFAULT = 0,
  HLX_RNG_THREE_FRY = 1,
  HLX_RNG_PHILOX = 2,
} hlx_rng_algorithm_t;
/* XLA RngBitGenerator: initial_state u64[k] (THREE_FRY: k = 2; PHILOX: 2
 * or 3); result a tuple (new state, bits of shape *desc, integer type). */
hlx_status_t hlx_builder_rng_bit_generator(hlx_builder_t* b,
                                           hlx_rng_algorithm_t algorithm,
                                           uint32_t initial_state,
                                           const hlx_tensor_desc_t* desc,
                                           uint32_t* out_value);

/* ---- tokens, host I/O, send/recv, custom calls ------------------------------
 * Tokens order side effects; they are values of this builder like tensors
 * (hlx_builder_get_desc fails on them). */
/* XLA AfterAll: a token after all n tokens (n = 0: XLA CreateToken). */
hlx_status_t hlx_builder_after_all(hlx_builder_t* b, const uint32_t* tokens,
                                   int32_t n, uint32_t* out_value);
/* XLA InfeedWithToken: a tuple (data of shape *desc, token). Values come
 * from hlx_run_options_t.infeed; config (copied, NULL = "") goes with them. */
hlx_status_t hlx_builder_infeed(hlx_builder_t* b, uint32_t token,
                                const hlx_tensor_desc_t* desc,
                                const char* config, uint32_t* out_value);
/* XLA OutfeedWithToken: hands operand to hlx_run_options_t.outfeed; the
 * result is a token. */
hlx_status_t hlx_builder_outfeed(hlx_builder_t* b, uint32_t operand,
                                 uint32_t token, const char* config,
                                 uint32_t* out_value);
/* XLA SendWithToken / RecvWithToken between the processes of one run: the
 * k-th send on channel_id (> 0) meets the k-th recv on it. Send returns a
 * token, Recv a tuple (data of shape *desc, token). */
hlx_status_t hlx_builder_send(hlx_builder_t* b, uint32_t operand,
                              uint32_t token, int64_t channel_id,
                              uint32_t* out_value);
hlx_status_t hlx_builder_recv(hlx_builder_t* b, uint32_t token,
                              const hlx_tensor_desc_t* desc,
                              int64_t channel_id, uint32_t* out_value);
/* XLA CustomCall: calls the host function registered under target_name
 * (hlx_compile_options_t.host_functions) with the operands; it fills
 * num_results results of shapes result_descs (one: that value; several: a
 * tuple). backend_config is copied (NULL = ""). */
hlx_status_t hlx_builder_custom_call(hlx_builder_t* b, const char* target_name,
                                     const uint32_t* operands, int32_t n,
                                     const hlx_tensor_desc_t* result_descs,
                                     int32_t num_results,
                                     const char* backend_config,
                                     bool has_side_effect,
                                     uint32_t* out_value);

#ifdef __cplusplus
}
#endif

#endif /* HLX_API_HLX_BUILDER_OPS_H_ */
