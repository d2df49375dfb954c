/* StableHLO MLIR text -> hlx IR.
 *
 * Accepts both the generic op form ("stablehlo.add"(%a, %b) : (...) -> ...)
 * and the pretty (custom assembly) forms that stablehlo-opt / JAX print, for
 * every stablehlo, chlo, func, check and interpreter op that the StableHLO
 * conformance programs use. Ops whose name is not in graph/ir/ops.inc are kept
 * with code HLX_OP_UNKNOWN and their name (the generic form always parses).
 *
 * Attribute naming and representation (the contract for passes/lowering):
 *  - Attribute names are those of the generic form whatever form was read:
 *    broadcast_in_dim dims -> broadcast_dimensions, transpose dims ->
 *    permutation, reverse dims -> dimensions, iota/dynamic_iota dim ->
 *    iota_dimension, concatenate/get_dimension_size dim -> dimension,
 *    slice [a:b:c] -> start_indices/limit_indices/strides, dynamic_slice
 *    sizes -> slice_sizes, pad low/high/interior -> edge_padding_low/
 *    edge_padding_high/interior_padding, fft type/length -> fft_type (ENUM
 *    "fft_type") / fft_length, rng_bit_generator algorithm -> rng_algorithm
 *    (ENUM "rng_algorithm"), rng distribution -> rng_distribution (ENUM
 *    "rng_distribution"), reduce_precision format = eXmY -> exponent_bits /
 *    mantissa_bits (INT : i32), get_tuple_element %t[i] -> index (INT : i32),
 *    reduce/reduce-like "across dimensions" -> dimensions, compare ->
 *    comparison_direction (ENUM "comparison_direction") and compare_type
 *    (ENUM "comparison_type"), custom_call @t -> call_target_name (STRING),
 *    composite "n" -> name (STRING), func.call @f -> callee (SYMBOL),
 *    chlo.top_k k -> k, chlo.scan dimension -> dimension (INT : i64) plus
 *    operandSegmentSizes (I64_ARRAY of i32: #inputs, #inits).
 *  - Pretty-form dense arrays become HLX_ATTR_I64_ARRAY (like array<i64:..>).
 *    I64_ARRAY .type is NULL for i64, else a rank-0 tensor type naming the
 *    element type (array<i1: ...> / array<i32: ...>); i1 values are 0/1.
 *  - INT/FLOAT .type, when the text gave `: i32` etc., is a rank-0 TENSOR
 *    type whose dtype is that scalar type; NULL when no type was written.
 *  - ENUM: `#stablehlo<kind VALUE>` -> .str = "kind", .enum_value = "VALUE".
 *    For another dialect, `#chlo<kind VALUE>` -> .str = "chlo.kind".
 *  - STRUCT: `#stablehlo.gather<...>`, `#stablehlo.scatter<...>`,
 *    `#stablehlo.dot<...>`, `#stablehlo.channel_handle<...>`,
 *    `#stablehlo.output_operand_alias<...>`, `#stablehlo.dot_algorithm<...>`,
 *    `#chlo.ragged_dot<...>`, ... -> .str = "stablehlo.gather" etc. and one
 *    field per `key = value`: `[1, 2]` lists are I64_ARRAY, integers INT
 *    (type NULL), true/false BOOL, nested #attrs as usual, bare words (e.g.
 *    element types like `tf32`) OPAQUE with the word as .str.
 *  - dot_general pretty: dot_dimension_numbers = STRUCT "stablehlo.dot" with
 *    I64_ARRAY fields lhs_batching_dimensions, rhs_batching_dimensions,
 *    lhs_contracting_dimensions, rhs_contracting_dimensions (all four always
 *    present when read from the pretty form); precision = [..] ->
 *    precision_config = ARRAY of ENUM "precision"; algorithm = <..> ->
 *    algorithm = STRUCT "stablehlo.dot_algorithm".
 *  - Convolution dimension numbers (`#stablehlo.conv<[b, 0, 1, f]x[0, 1, i,
 *    o]->[b, 0, 1, f]>`, the `raw` form, and pretty `dim_numbers = ...`) ->
 *    dimension_numbers = STRUCT "stablehlo.conv" with fields
 *    input_batch_dimension, input_feature_dimension (INT),
 *    input_spatial_dimensions (I64_ARRAY), kernel_input_feature_dimension,
 *    kernel_output_feature_dimension (INT), kernel_spatial_dimensions
 *    (I64_ARRAY), output_batch_dimension, output_feature_dimension (INT),
 *    output_spatial_dimensions (I64_ARRAY). The printer prints the compact
 *    form back (or the raw form when the fields are not a permutation).
 *    Pretty `window = {stride, pad, lhs_dilate, rhs_dilate, reverse}` ->
 *    window_strides, padding (DENSE tensor<Nx2xi64>), lhs_dilation,
 *    rhs_dilation (I64_ARRAY), window_reversal (I64_ARRAY of i1).
 *  - Regions: while -> regions[0] = cond, regions[1] = body (both blocks
 *    take the iteration values as arguments); if -> [true, false]; case ->
 *    the branches; reduce (both the `applies` form, whose body is
 *    synthesized: block args (acc..., x...) typed like the rank-0 init
 *    values, one op, stablehlo.return) and `reducer(...)` form -> regions[0] with
 *    block args (acc_0..acc_{n-1}, x_0..x_{n-1}).
 *  - check ops: check.expect_eq_const / expect_almost_eq_const -> `value`
 *    DENSE; `tolerance` FLOAT (: f64); expect_close max_ulp_difference INT
 *    (: i64); probe / expect_serialized_eq probe_id STRING, iter INT (: i64).
 *  - Constants: `value` DENSE (splats expanded, at most 1 GiB) or ELIDED for
 *    dense_resource<...> (.str = resource name).
 *  - Attribute-valued non-tensor types (e.g. `f32` in a type attribute) and
 *    any attribute the parser has no model for are OPAQUE (source text).
 *  - Generic-form properties <{...}> and the attribute dictionary {...} are
 *    merged into op->attrs (properties first).
 *  - Value names (value->name) keep the source SSA names; multi-result
 *    groups `%r:2` name both results "r" (index tells them apart).
 */
#ifndef HLX_GRAPH_STABLEHLO_PARSER_H_
#define HLX_GRAPH_STABLEHLO_PARSER_H_

#include <stddef.h>

#include "base/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* graph/ir/ir.h has no C++ guards of its own: include it with C linkage. */
#include "graph/ir/ir.h"

/* Splits a file's text at lines that are exactly `// -----` (MLIR
 * split-input-file). */
typedef struct hlx_text_chunk_t {
  const char* text;
  size_t len;
  int first_line; /* 1-based line number of the chunk's first line */
} hlx_text_chunk_t;

/* Returns the number of chunks (may exceed max_chunks: call again with a
 * larger array); fills at most max_chunks entries of out (out may be NULL
 * when max_chunks is 0). */
int hlx_split_programs(const char* text, size_t len, hlx_text_chunk_t* out,
                       int max_chunks);

/* Parses one program. filename and first_line are only for messages
 * (filename may be NULL). On success *out owns a new module (free with
 * hlx_module_destroy); on error *out is NULL and the status message is
 * `file:line:col: expected X, got 'tok'` or `...: unsupported: ...`. */
hlx_status_t hlx_parse_module(const char* text, size_t len,
                              const char* filename, int first_line,
                              hlx_module_t** out);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* HLX_GRAPH_STABLEHLO_PARSER_H_ */
