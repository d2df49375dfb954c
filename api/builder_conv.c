/* Builder: convolution (XLA ConvGeneralDilated, ConvWithGeneralPadding,
 * Conv), emitted as stablehlo.convolution with explicit padding. */
#include <string.h>

#include "api/builder_internal.h"

void hlx_conv_dimension_numbers_default(int32_t num_spatial_dims,
                                        hlx_conv_dimension_numbers_t* dn) {
  if (!dn) return;
  memset(dn, 0, sizeof(*dn));
  if (num_spatial_dims < 0 || num_spatial_dims > HLX_MAX_DIMS - 2) return;
  dn->num_spatial_dims = num_spatial_dims;
  dn->input_batch_dimension = 0;
  dn->input_feature_dimension = 1;
  dn->kernel_output_feature_dimension = 0;
  dn->kernel_input_feature_dimension = 1;
  dn->output_batch_dimension = 0;
  dn->output_feature_dimension = 1;
  for (int32_t i = 0; i < num_spatial_dims; i++)
    dn->input_spatial_dimensions[i] = dn->kernel_spatial_dimensions[i] =
        dn->output_spatial_dimensions[i] = i + 2;
}

/* Checks that (a, b, spatial...) is a permutation of 0..rank-1. */
static hlx_status_t check_perm(hlx_builder_t* b, const char* kOp,
                               const char* which, int64_t a, int64_t c,
                               const int64_t* sp, int32_t ns, int32_t rank) {
  bool seen[HLX_MAX_RANK] = {false};
  int64_t all[HLX_MAX_RANK];
  all[0] = a;
  all[1] = c;
  for (int32_t i = 0; i < ns; i++) all[2 + i] = sp[i];
  for (int32_t i = 0; i < ns + 2; i++) {
    if (all[i] < 0 || all[i] >= rank)
      return hlx_bld_fail(b, kOp, "%s dimension %lld is out of range for rank %d",
                          which, (long long)all[i], (int)rank);
    if (seen[all[i]])
      return hlx_bld_fail(b, kOp, "%s dimension numbers repeat dimension %lld",
                          which, (long long)all[i]);
    seen[all[i]] = true;
  }
  return NULL;
}

static hlx_attr_t* int_field(hlx_builder_t* b, int64_t v) {
  hlx_attr_t* a = hlx_bld_attr_new(b, HLX_ATTR_INT);
  if (a) a->i = v; /* struct fields are untyped, as the parser makes them */
  return a;
}

static hlx_attr_t* dn_attr(hlx_builder_t* b,
                           const hlx_conv_dimension_numbers_t* dn) {
  hlx_attr_t* a = hlx_bld_attr_new(b, HLX_ATTR_STRUCT);
  if (!a) return NULL;
  int32_t ns = dn->num_spatial_dims;
  a->str = "stablehlo.conv";
  a->count = 9;
  a->dict = hlx_bld_balloc(b, sizeof(hlx_named_attr_t) * 9);
  if (!a->dict) return NULL;
  hlx_named_attr_t f[9] = {
      {"input_batch_dimension", int_field(b, dn->input_batch_dimension)},
      {"input_feature_dimension", int_field(b, dn->input_feature_dimension)},
      {"input_spatial_dimensions",
       hlx_bld_attr_i64s(b, dn->input_spatial_dimensions, ns)},
      {"kernel_input_feature_dimension",
       int_field(b, dn->kernel_input_feature_dimension)},
      {"kernel_output_feature_dimension",
       int_field(b, dn->kernel_output_feature_dimension)},
      {"kernel_spatial_dimensions",
       hlx_bld_attr_i64s(b, dn->kernel_spatial_dimensions, ns)},
      {"output_batch_dimension", int_field(b, dn->output_batch_dimension)},
      {"output_feature_dimension", int_field(b, dn->output_feature_dimension)},
      {"output_spatial_dimensions",
       hlx_bld_attr_i64s(b, dn->output_spatial_dimensions, ns)},
  };
  for (int i = 0; i < 9; i++)
    if (!f[i].value) return NULL;
  memcpy(a->dict, f, sizeof f);
  return a;
}

hlx_status_t hlx_builder_conv_general_dilated(
    hlx_builder_t* b, uint32_t lhs, uint32_t rhs, const int64_t* window_strides,
    const int64_t* padding, const int64_t* lhs_dilation,
    const int64_t* rhs_dilation, const hlx_conv_dimension_numbers_t* dn,
    int64_t feature_group_count, int64_t batch_group_count,
    uint32_t* out_value) {
  static const char kOp[] = "convolution";
  BEGIN(b, out_value, kOp);
  hlx_value_t *l = NULL, *r = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "lhs", lhs, &l));
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "rhs", rhs, &r));
  if (!dn) return hlx_bld_fail(b, kOp, "NULL dimension numbers");
  const hlx_type_t *lt = l->type, *rt = r->type;
  int32_t ns = dn->num_spatial_dims;
  if (ns < 0 || ns > HLX_MAX_RANK - 2 || lt->rank != ns + 2)
    return hlx_bld_fail(b, kOp,
                        "lhs has rank %d, but %d spatial dimensions need rank "
                        "%d",
                        (int)lt->rank, (int)ns, (int)ns + 2);
  if (rt->rank != lt->rank)
    return hlx_bld_fail(b, kOp, "rhs has rank %d, lhs %d", (int)rt->rank,
                        (int)lt->rank);
  if (lt->dtype != rt->dtype)
    return hlx_bld_fail(b, kOp, "element types differ: lhs %s, rhs %s",
                        hlx_dtype_name(lt->dtype), hlx_dtype_name(rt->dtype));
  int32_t rank = lt->rank;
  HLX_RETURN_IF_ERROR(check_perm(b, kOp, "input", dn->input_batch_dimension,
                                 dn->input_feature_dimension,
                                 dn->input_spatial_dimensions, ns, rank));
  HLX_RETURN_IF_ERROR(check_perm(b, kOp, "kernel",
                                 dn->kernel_input_feature_dimension,
                                 dn->kernel_output_feature_dimension,
                                 dn->kernel_spatial_dimensions, ns, rank));
  HLX_RETURN_IF_ERROR(check_perm(b, kOp, "output", dn->output_batch_dimension,
                                 dn->output_feature_dimension,
                                 dn->output_spatial_dimensions, ns, rank));
  int64_t G = feature_group_count, B = batch_group_count;
  if (G < 1 || B < 1)
    return hlx_bld_fail(b, kOp,
                        "feature_group_count %lld and batch_group_count %lld "
                        "must be >= 1",
                        (long long)G, (long long)B);
  if (G > 1 && B > 1)
    return hlx_bld_fail(b, kOp,
                        "feature_group_count and batch_group_count cannot both "
                        "exceed 1");
  int64_t in_b = lt->dims[dn->input_batch_dimension];
  int64_t in_f = lt->dims[dn->input_feature_dimension];
  int64_t k_i = rt->dims[dn->kernel_input_feature_dimension];
  int64_t k_o = rt->dims[dn->kernel_output_feature_dimension];
  if (in_f % G != 0)
    return hlx_bld_fail(b, kOp,
                        "input feature size %lld is not a multiple of "
                        "feature_group_count %lld",
                        (long long)in_f, (long long)G);
  if (in_b % B != 0)
    return hlx_bld_fail(b, kOp,
                        "input batch size %lld is not a multiple of "
                        "batch_group_count %lld",
                        (long long)in_b, (long long)B);
  if (k_i != in_f / G)
    return hlx_bld_fail(b, kOp,
                        "kernel input feature size %lld must be input feature "
                        "size / feature_group_count = %lld",
                        (long long)k_i, (long long)(in_f / G));
  if (k_o % G != 0 || k_o % B != 0)
    return hlx_bld_fail(b, kOp,
                        "kernel output feature size %lld must be a multiple of "
                        "feature_group_count %lld and batch_group_count %lld",
                        (long long)k_o, (long long)G, (long long)B);
  int64_t dims[HLX_MAX_RANK];
  dims[dn->output_batch_dimension] = in_b / B;
  dims[dn->output_feature_dimension] = k_o;
  for (int32_t i = 0; i < ns; i++) {
    int64_t s = window_strides ? window_strides[i] : 1;
    int64_t ld = lhs_dilation ? lhs_dilation[i] : 1;
    int64_t rd = rhs_dilation ? rhs_dilation[i] : 1;
    if (s < 1 || ld < 1 || rd < 1)
      return hlx_bld_fail(b, kOp,
                          "spatial dimension %d: stride %lld, lhs dilation "
                          "%lld and rhs dilation %lld must be >= 1",
                          (int)i, (long long)s, (long long)ld, (long long)rd);
    dims[dn->output_spatial_dimensions[i]] = hlx_bld_window_count(
        lt->dims[dn->input_spatial_dimensions[i]],
        rt->dims[dn->kernel_spatial_dimensions[i]], s,
        padding ? padding[2 * i] : 0, padding ? padding[2 * i + 1] : 0, ld, rd);
  }
  hlx_type_t* t = hlx_bld_tensor_type(&b->module->arena, lt->dtype, rank, dims);
  if (!t) return hlx_bld_oom(b);
  int64_t zeros[2 * HLX_MAX_RANK] = {0};
  named_t attrs[] = {
      {"window_strides",
       hlx_bld_attr_i64s(b, hlx_bld_or_ones(window_strides), ns)},
      {"padding", hlx_bld_attr_dense_i64(b, padding ? padding : zeros, ns, 2)},
      {"lhs_dilation",
       hlx_bld_attr_i64s(b, hlx_bld_or_ones(lhs_dilation), ns)},
      {"rhs_dilation",
       hlx_bld_attr_i64s(b, hlx_bld_or_ones(rhs_dilation), ns)},
      {"dimension_numbers", dn_attr(b, dn)},
      {"feature_group_count", hlx_bld_attr_int(b, G, HLX_DTYPE_S64)},
      {"batch_group_count", hlx_bld_attr_int(b, B, HLX_DTYPE_S64)},
  };
  hlx_value_t* ops[2] = {l, r};
  return hlx_bld_emit1(b, HLX_OP_CONVOLUTION, ops, 2, t, attrs, 7, NULL,
                       out_value);
}

hlx_status_t hlx_builder_conv_with_general_padding(
    hlx_builder_t* b, uint32_t lhs, uint32_t rhs, const int64_t* window_strides,
    const int64_t* padding, uint32_t* out_value) {
  static const char kOp[] = "convolution";
  BEGIN(b, out_value, kOp);
  hlx_value_t* l = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "lhs", lhs, &l));
  if (l->type->rank < 2)
    return hlx_bld_fail(b, kOp, "lhs has rank %d, needs at least 2 (batch, "
                        "feature)", (int)l->type->rank);
  hlx_conv_dimension_numbers_t dn;
  hlx_conv_dimension_numbers_default(l->type->rank - 2, &dn);
  return hlx_builder_conv_general_dilated(b, lhs, rhs, window_strides, padding,
                                          NULL, NULL, &dn, 1, 1, out_value);
}

hlx_status_t hlx_builder_conv(hlx_builder_t* b, uint32_t lhs, uint32_t rhs,
                              const int64_t* window_strides,
                              hlx_padding_t padding, uint32_t* out_value) {
  static const char kOp[] = "convolution";
  BEGIN(b, out_value, kOp);
  hlx_value_t *l = NULL, *r = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "lhs", lhs, &l));
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "rhs", rhs, &r));
  if (l->type->rank < 2 || r->type->rank != l->type->rank)
    return hlx_bld_fail(b, kOp, "lhs rank %d and rhs rank %d must be equal and "
                        ">= 2", (int)l->type->rank, (int)r->type->rank);
  int32_t ns = l->type->rank - 2;
  int64_t spatial[HLX_MAX_RANK], window[HLX_MAX_RANK], pad[2 * HLX_MAX_RANK];
  for (int32_t i = 0; i < ns; i++) {
    spatial[i] = i + 2;
    window[i] = r->type->dims[i + 2];
  }
  HLX_RETURN_IF_ERROR(hlx_bld_padding_pairs(b, kOp, l->type, spatial, ns,
                                            window, window_strides, NULL,
                                            padding, pad));
  return hlx_builder_conv_with_general_padding(b, lhs, rhs, window_strides,
                                               pad, out_value);
}
