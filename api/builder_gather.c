/* Builder: Gather, Scatter, DynamicSlice, DynamicUpdateSlice (XLA
 * operation semantics; StableHLO gather/scatter dimension numbers). */
#include <stdio.h>
#include <string.h>

#include "api/builder_internal.h"

/* A list of dimension numbers: each in [0, limit), strictly increasing when
 * `sorted`, distinct. */
static hlx_status_t check_list(hlx_builder_t* b, const char* kOp,
                               const char* name, const int64_t* v, int32_t n,
                               int64_t limit, bool sorted) {
  if (n < 0 || n > HLX_MAX_RANK || (n > 0 && !v))
    return hlx_bld_fail(b, kOp, "%s: bad count %d", name, (int)n);
  bool seen[HLX_MAX_RANK] = {false};
  for (int32_t i = 0; i < n; i++) {
    if (v[i] < 0 || v[i] >= limit)
      return hlx_bld_fail(b, kOp, "%s[%d] = %lld is out of range [0, %lld)",
                          name, (int)i, (long long)v[i], (long long)limit);
    if (seen[v[i]])
      return hlx_bld_fail(b, kOp, "%s repeats %lld", name, (long long)v[i]);
    if (sorted && i > 0 && v[i] < v[i - 1])
      return hlx_bld_fail(b, kOp, "%s must be sorted", name);
    seen[v[i]] = true;
  }
  return NULL;
}

static bool in_list(const int64_t* v, int32_t n, int64_t x) {
  for (int32_t i = 0; i < n; i++)
    if (v[i] == x) return true;
  return false;
}

/* Adds `name = [..]` to a struct attribute when the list is non-empty (the
 * printer leaves empty lists out, so the parser never makes them). */
static bool add_field(hlx_builder_t* b, hlx_attr_t* s, const char* name,
                      hlx_attr_t* value) {
  if (!value) return false;
  if (value->kind == HLX_ATTR_I64_ARRAY && value->count == 0) return true;
  s->dict[s->count].name = name;
  s->dict[s->count].value = value;
  s->count++;
  (void)b;
  return true;
}

static hlx_attr_t* untyped_int(hlx_builder_t* b, int64_t v) {
  hlx_attr_t* a = hlx_bld_attr_new(b, HLX_ATTR_INT);
  if (a) a->i = v;
  return a;
}

static hlx_status_t index_type(hlx_builder_t* b, const char* kOp,
                               const hlx_value_t* idx, const char* role) {
  if (!hlx_dtype_is_int(idx->type->dtype))
    return hlx_bld_fail(b, kOp, "%s must have an integer element type, not %s",
                        role, hlx_dtype_name(idx->type->dtype));
  return NULL;
}

/* Number of index components per index: dims[ivd], or 1 when ivd = rank. */
static int64_t index_width(const hlx_type_t* it, int64_t ivd) {
  return ivd < it->rank ? it->dims[ivd] : 1;
}

hlx_status_t hlx_builder_gather(hlx_builder_t* b, uint32_t operand,
                                uint32_t start_indices,
                                const hlx_gather_dimension_numbers_t* dn,
                                const int64_t* slice_sizes, int32_t num_sizes,
                                bool indices_are_sorted, uint32_t* out_value) {
  static const char kOp[] = "gather";
  BEGIN(b, out_value, kOp);
  hlx_value_t *x = NULL, *ix = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "operand", operand, &x));
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "start_indices", start_indices,
                                         &ix));
  HLX_RETURN_IF_ERROR(index_type(b, kOp, ix, "start_indices"));
  if (!dn) return hlx_bld_fail(b, kOp, "NULL dimension numbers");
  const hlx_type_t *ot = x->type, *it = ix->type;
  int64_t ivd = dn->index_vector_dim;
  if (ivd < 0 || ivd > it->rank)
    return hlx_bld_fail(b, kOp, "index_vector_dim %lld is out of range [0, %d]",
                        (long long)ivd, (int)it->rank);
  if (num_sizes != ot->rank || !slice_sizes)
    return hlx_bld_fail(b, kOp, "slice_sizes has %d entries, operand rank is %d",
                        (int)num_sizes, (int)ot->rank);
  for (int32_t i = 0; i < ot->rank; i++)
    if (slice_sizes[i] < 0 || slice_sizes[i] > ot->dims[i])
      return hlx_bld_fail(b, kOp, "slice_sizes[%d] = %lld is not in [0, %lld]",
                          (int)i, (long long)slice_sizes[i],
                          (long long)ot->dims[i]);
  int32_t batch_rank = it->rank - (ivd < it->rank ? 1 : 0);
  int32_t noff = dn->num_offset_dims;
  int32_t rank = batch_rank + noff;
  if (rank > HLX_MAX_RANK)
    return hlx_bld_fail(b, kOp, "the result would exceed rank %d", HLX_MAX_RANK);
  HLX_RETURN_IF_ERROR(check_list(b, kOp, "offset_dims", dn->offset_dims, noff,
                                 rank, true));
  HLX_RETURN_IF_ERROR(check_list(b, kOp, "collapsed_slice_dims",
                                 dn->collapsed_slice_dims,
                                 dn->num_collapsed_slice_dims, ot->rank, true));
  HLX_RETURN_IF_ERROR(check_list(b, kOp, "operand_batching_dims",
                                 dn->operand_batching_dims,
                                 dn->num_operand_batching_dims, ot->rank, true));
  HLX_RETURN_IF_ERROR(check_list(b, kOp, "start_indices_batching_dims",
                                 dn->start_indices_batching_dims,
                                 dn->num_start_indices_batching_dims, it->rank,
                                 false));
  HLX_RETURN_IF_ERROR(check_list(b, kOp, "start_index_map", dn->start_index_map,
                                 dn->num_start_index_map, ot->rank, false));
  if (dn->num_operand_batching_dims != dn->num_start_indices_batching_dims)
    return hlx_bld_fail(b, kOp, "operand_batching_dims and "
                        "start_indices_batching_dims differ in length");
  for (int32_t i = 0; i < dn->num_start_indices_batching_dims; i++)
    if (dn->start_indices_batching_dims[i] == ivd)
      return hlx_bld_fail(b, kOp, "start_indices_batching_dims contains "
                          "index_vector_dim");
  if (dn->num_start_index_map != index_width(it, ivd))
    return hlx_bld_fail(b, kOp, "start_index_map has %d entries, but indices "
                        "have %lld components", (int)dn->num_start_index_map,
                        (long long)index_width(it, ivd));
  for (int32_t i = 0; i < ot->rank; i++) {
    bool col = in_list(dn->collapsed_slice_dims, dn->num_collapsed_slice_dims, i);
    bool bat = in_list(dn->operand_batching_dims, dn->num_operand_batching_dims, i);
    if (col && bat)
      return hlx_bld_fail(b, kOp, "dimension %d is both collapsed and a "
                          "batching dimension", (int)i);
    if ((col || bat) && slice_sizes[i] > 1)
      return hlx_bld_fail(b, kOp, "slice_sizes[%d] = %lld, but collapsed and "
                          "batching dimensions need size <= 1", (int)i,
                          (long long)slice_sizes[i]);
  }
  int32_t nkeep = ot->rank - dn->num_collapsed_slice_dims -
                  dn->num_operand_batching_dims;
  if (noff != nkeep)
    return hlx_bld_fail(b, kOp, "offset_dims has %d entries, but %d slice "
                        "dimensions are neither collapsed nor batching",
                        (int)noff, (int)nkeep);
  int64_t dims[HLX_MAX_RANK];
  int32_t oi = 0, bi = 0, si = 0;
  for (int32_t d = 0; d < rank; d++) {
    if (oi < noff && dn->offset_dims[oi] == d) {
      while (in_list(dn->collapsed_slice_dims, dn->num_collapsed_slice_dims, si) ||
             in_list(dn->operand_batching_dims, dn->num_operand_batching_dims, si))
        si++;
      dims[d] = slice_sizes[si++];
      oi++;
    } else {
      if (bi == ivd) bi++;
      dims[d] = it->dims[bi++];
    }
  }
  hlx_type_t* t = hlx_bld_tensor_type(&b->module->arena, ot->dtype, rank, dims);
  hlx_attr_t* s = hlx_bld_attr_new(b, HLX_ATTR_STRUCT);
  if (!t || !s) return hlx_bld_oom(b);
  s->str = "stablehlo.gather";
  s->dict = hlx_bld_balloc(b, sizeof(hlx_named_attr_t) * 6);
  if (!s->dict ||
      !add_field(b, s, "offset_dims", hlx_bld_attr_i64s(b, dn->offset_dims, noff)) ||
      !add_field(b, s, "collapsed_slice_dims",
                 hlx_bld_attr_i64s(b, dn->collapsed_slice_dims,
                                   dn->num_collapsed_slice_dims)) ||
      !add_field(b, s, "operand_batching_dims",
                 hlx_bld_attr_i64s(b, dn->operand_batching_dims,
                                   dn->num_operand_batching_dims)) ||
      !add_field(b, s, "start_indices_batching_dims",
                 hlx_bld_attr_i64s(b, dn->start_indices_batching_dims,
                                   dn->num_start_indices_batching_dims)) ||
      !add_field(b, s, "start_index_map",
                 hlx_bld_attr_i64s(b, dn->start_index_map,
                                   dn->num_start_index_map)) ||
      !add_field(b, s, "index_vector_dim", untyped_int(b, ivd)))
    return hlx_bld_oom(b);
  named_t attrs[] = {
      {"dimension_numbers", s},
      {"slice_sizes", hlx_bld_attr_i64s(b, slice_sizes, ot->rank)},
      {"indices_are_sorted", hlx_bld_attr_bool(b, indices_are_sorted)},
  };
  hlx_value_t* ops[2] = {x, ix};
  return hlx_bld_emit1(b, HLX_OP_GATHER, ops, 2, t, attrs, 3, NULL, out_value);
}

hlx_status_t hlx_builder_scatter(hlx_builder_t* b, uint32_t operand,
                                 uint32_t scatter_indices, uint32_t updates,
                                 const hlx_computation_t* update_computation,
                                 const hlx_scatter_dimension_numbers_t* dn,
                                 bool indices_are_sorted, bool unique_indices,
                                 uint32_t* out_value) {
  static const char kOp[] = "scatter";
  BEGIN(b, out_value, kOp);
  hlx_value_t *x = NULL, *ix = NULL, *u = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "operand", operand, &x));
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "scatter_indices",
                                         scatter_indices, &ix));
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "updates", updates, &u));
  HLX_RETURN_IF_ERROR(index_type(b, kOp, ix, "scatter_indices"));
  if (!dn) return hlx_bld_fail(b, kOp, "NULL dimension numbers");
  const hlx_type_t *ot = x->type, *it = ix->type, *ut = u->type;
  if (ut->dtype != ot->dtype)
    return hlx_bld_fail(b, kOp, "updates element type %s differs from the "
                        "operand's %s", hlx_dtype_name(ut->dtype),
                        hlx_dtype_name(ot->dtype));
  HLX_RETURN_IF_ERROR(hlx_bld_check_scalar_computation(
      b, kOp, "update_computation", update_computation, 2, ot->dtype, 1,
      ot->dtype));
  int64_t ivd = dn->index_vector_dim;
  if (ivd < 0 || ivd > it->rank)
    return hlx_bld_fail(b, kOp, "index_vector_dim %lld is out of range [0, %d]",
                        (long long)ivd, (int)it->rank);
  int32_t nuw = dn->num_update_window_dims;
  int32_t scatter_rank = it->rank - (ivd < it->rank ? 1 : 0);
  if (ut->rank != nuw + scatter_rank)
    return hlx_bld_fail(b, kOp, "updates have rank %d, but need %d "
                        "(update_window_dims + scatter dimensions of the "
                        "indices)", (int)ut->rank, (int)(nuw + scatter_rank));
  HLX_RETURN_IF_ERROR(check_list(b, kOp, "update_window_dims",
                                 dn->update_window_dims, nuw, ut->rank, true));
  HLX_RETURN_IF_ERROR(check_list(b, kOp, "inserted_window_dims",
                                 dn->inserted_window_dims,
                                 dn->num_inserted_window_dims, ot->rank, true));
  HLX_RETURN_IF_ERROR(check_list(b, kOp, "input_batching_dims",
                                 dn->input_batching_dims,
                                 dn->num_input_batching_dims, ot->rank, true));
  HLX_RETURN_IF_ERROR(check_list(b, kOp, "scatter_indices_batching_dims",
                                 dn->scatter_indices_batching_dims,
                                 dn->num_scatter_indices_batching_dims,
                                 it->rank, false));
  HLX_RETURN_IF_ERROR(check_list(b, kOp, "scatter_dims_to_operand_dims",
                                 dn->scatter_dims_to_operand_dims,
                                 dn->num_scatter_dims_to_operand_dims,
                                 ot->rank, false));
  if (dn->num_input_batching_dims != dn->num_scatter_indices_batching_dims)
    return hlx_bld_fail(b, kOp, "input_batching_dims and "
                        "scatter_indices_batching_dims differ in length");
  if (nuw + dn->num_inserted_window_dims + dn->num_input_batching_dims !=
      ot->rank)
    return hlx_bld_fail(b, kOp, "update_window_dims (%d) + inserted_window_dims "
                        "(%d) + input_batching_dims (%d) must equal the "
                        "operand rank %d", (int)nuw,
                        (int)dn->num_inserted_window_dims,
                        (int)dn->num_input_batching_dims, (int)ot->rank);
  if (dn->num_scatter_dims_to_operand_dims != index_width(it, ivd))
    return hlx_bld_fail(b, kOp, "scatter_dims_to_operand_dims has %d entries, "
                        "but indices have %lld components",
                        (int)dn->num_scatter_dims_to_operand_dims,
                        (long long)index_width(it, ivd));
  /* Update window sizes fit the operand's window dimensions; update scatter
   * dimensions match the indices' batch dimensions. */
  int32_t wi = 0, od = 0, sd = 0;
  for (int32_t d = 0; d < ut->rank; d++) {
    if (wi < nuw && dn->update_window_dims[wi] == d) {
      while (in_list(dn->inserted_window_dims, dn->num_inserted_window_dims, od) ||
             in_list(dn->input_batching_dims, dn->num_input_batching_dims, od))
        od++;
      if (ut->dims[d] > ot->dims[od])
        return hlx_bld_fail(b, kOp, "updates dimension %d has size %lld, more "
                            "than operand dimension %d's %lld", (int)d,
                            (long long)ut->dims[d], (int)od,
                            (long long)ot->dims[od]);
      od++;
      wi++;
    } else {
      if (sd == ivd) sd++;
      if (ut->dims[d] != it->dims[sd])
        return hlx_bld_fail(b, kOp, "updates dimension %d has size %lld, but "
                            "scatter_indices dimension %d has %lld", (int)d,
                            (long long)ut->dims[d], (int)sd,
                            (long long)it->dims[sd]);
      sd++;
    }
  }
  hlx_attr_t* s = hlx_bld_attr_new(b, HLX_ATTR_STRUCT);
  if (!s) return hlx_bld_oom(b);
  s->str = "stablehlo.scatter";
  s->dict = hlx_bld_balloc(b, sizeof(hlx_named_attr_t) * 6);
  if (!s->dict ||
      !add_field(b, s, "update_window_dims",
                 hlx_bld_attr_i64s(b, dn->update_window_dims, nuw)) ||
      !add_field(b, s, "inserted_window_dims",
                 hlx_bld_attr_i64s(b, dn->inserted_window_dims,
                                   dn->num_inserted_window_dims)) ||
      !add_field(b, s, "input_batching_dims",
                 hlx_bld_attr_i64s(b, dn->input_batching_dims,
                                   dn->num_input_batching_dims)) ||
      !add_field(b, s, "scatter_indices_batching_dims",
                 hlx_bld_attr_i64s(b, dn->scatter_indices_batching_dims,
                                   dn->num_scatter_indices_batching_dims)) ||
      !add_field(b, s, "scatter_dims_to_operand_dims",
                 hlx_bld_attr_i64s(b, dn->scatter_dims_to_operand_dims,
                                   dn->num_scatter_dims_to_operand_dims)) ||
      !add_field(b, s, "index_vector_dim", untyped_int(b, ivd)))
    return hlx_bld_oom(b);
  named_t attrs[] = {
      {"scatter_dimension_numbers", s},
      {"indices_are_sorted", hlx_bld_attr_bool(b, indices_are_sorted)},
      {"unique_indices", hlx_bld_attr_bool(b, unique_indices)},
  };
  hlx_value_t* ops[3] = {x, ix, u};
  hlx_value_t* r = NULL;
  HLX_RETURN_IF_ERROR(
      hlx_bld_emit1(b, HLX_OP_SCATTER, ops, 3, x->type, attrs, 3, &r, out_value));
  return hlx_bld_attach_regions(b, r->def, &update_computation, NULL, 1);
}

/* operand followed by n rank-0 integer start indices of one type. */
static hlx_status_t start_operands(hlx_builder_t* b, const char* kOp,
                                   const hlx_value_t* x, const uint32_t* ids,
                                   int32_t n, hlx_value_t** vs) {
  if (n != x->type->rank || (n > 0 && !ids))
    return hlx_bld_fail(b, kOp, "%d start indices for an operand of rank %d",
                        (int)n, (int)x->type->rank);
  for (int32_t i = 0; i < n; i++) {
    char role[32];
    snprintf(role, sizeof role, "start index %d", (int)i);
    HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, role, ids[i], &vs[i]));
    if (vs[i]->type->rank != 0 || !hlx_dtype_is_int(vs[i]->type->dtype))
      return hlx_bld_fail(b, kOp, "start index %d must be a rank-0 integer",
                          (int)i);
    if (vs[i]->type->dtype != vs[0]->type->dtype)
      return hlx_bld_fail(b, kOp, "start indices must share one element type");
  }
  return NULL;
}

hlx_status_t hlx_builder_dynamic_slice(hlx_builder_t* b, uint32_t operand,
                                       const uint32_t* start_indices,
                                       const int64_t* slice_sizes, int32_t n,
                                       uint32_t* out_value) {
  static const char kOp[] = "dynamic_slice";
  BEGIN(b, out_value, kOp);
  hlx_value_t* vs[HLX_MAX_RANK + 1];
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "operand", operand, &vs[0]));
  const hlx_type_t* ot = vs[0]->type;
  HLX_RETURN_IF_ERROR(start_operands(b, kOp, vs[0], start_indices, n, vs + 1));
  if (n > 0 && !slice_sizes) return hlx_bld_fail(b, kOp, "NULL slice_sizes");
  for (int32_t i = 0; i < n; i++)
    if (slice_sizes[i] < 0 || slice_sizes[i] > ot->dims[i])
      return hlx_bld_fail(b, kOp, "slice_sizes[%d] = %lld is not in [0, %lld]",
                          (int)i, (long long)slice_sizes[i],
                          (long long)ot->dims[i]);
  hlx_type_t* t = hlx_bld_tensor_type(&b->module->arena, ot->dtype, n, slice_sizes);
  if (!t) return hlx_bld_oom(b);
  named_t attrs[] = {{"slice_sizes", hlx_bld_attr_i64s(b, slice_sizes, n)}};
  return hlx_bld_emit1(b, HLX_OP_DYNAMIC_SLICE, vs, n + 1, t, attrs, 1, NULL,
                       out_value);
}

hlx_status_t hlx_builder_dynamic_update_slice(hlx_builder_t* b,
                                              uint32_t operand,
                                              uint32_t update,
                                              const uint32_t* start_indices,
                                              int32_t n, uint32_t* out_value) {
  static const char kOp[] = "dynamic_update_slice";
  BEGIN(b, out_value, kOp);
  hlx_value_t* vs[HLX_MAX_RANK + 2];
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "operand", operand, &vs[0]));
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "update", update, &vs[1]));
  const hlx_type_t *ot = vs[0]->type, *ut = vs[1]->type;
  if (ut->dtype != ot->dtype || ut->rank != ot->rank)
    return hlx_bld_fail(b, kOp, "update must have the operand's element type "
                        "and rank");
  for (int32_t i = 0; i < ot->rank; i++)
    if (ut->dims[i] > ot->dims[i])
      return hlx_bld_fail(b, kOp, "update dimension %d has size %lld, more "
                          "than the operand's %lld", (int)i,
                          (long long)ut->dims[i], (long long)ot->dims[i]);
  HLX_RETURN_IF_ERROR(start_operands(b, kOp, vs[0], start_indices, n, vs + 2));
  return hlx_bld_emit1(b, HLX_OP_DYNAMIC_UPDATE_SLICE, vs, n + 2,
                       (hlx_type_t*)ot, NULL, 0, NULL, out_value);
}
