// HLO programs written from the examples of XLA's operation semantics
// (Concatenate, Slice, DynamicSlice, DynamicUpdateSlice, Select, Broadcast,
// Reduce, Pad, Gather, ...): each runs through the public API with the
// documented result, and gives the same values as its StableHLO
// equivalent. Programs hlx prints as HLO (including ones parsed from
// StableHLO) run the same after the round trip.
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "api/hlx.h"

namespace {

std::string Msg(hlx_status_t s) {
  std::string m = s ? hlx_status_get_message(s) : "";
  hlx_status_release(s);
  return m;
}

double Element(const hlx_tensor_desc_t* d, const void* data, size_t i) {
  const char* t = hlx_element_type_name(d->element_type);
  if (!strcmp(t, "f32")) return static_cast<const float*>(data)[i];
  if (!strcmp(t, "f64")) return static_cast<const double*>(data)[i];
  if (!strcmp(t, "i32")) return static_cast<const int32_t*>(data)[i];
  if (!strcmp(t, "i64")) return static_cast<const int64_t*>(data)[i];
  if (!strcmp(t, "ui32")) return static_cast<const uint32_t*>(data)[i];
  if (!strcmp(t, "i1")) return static_cast<const uint8_t*>(data)[i];
  ADD_FAILURE() << "element type " << t;
  return 0;
}

// Runs the entry of text (no parameters); every result's elements in order.
std::string RunProgram(const std::string& text, std::vector<double>* out) {
  out->clear();
  hlx_program_t* p = nullptr;
  hlx_executable_t* e = nullptr;
  hlx_status_t s = hlx_program_parse(text.data(), text.size(), "t", 1, &p);
  if (!s) s = hlx_executable_create(p, nullptr, &e);
  int32_t n = s ? 0 : hlx_executable_num_results(e);
  std::vector<hlx_buffer_t*> res(n + 1, nullptr);
  if (!s) s = hlx_executable_run(e, nullptr, 0, res.data(), n);
  for (int32_t r = 0; !s && r < n; r++) {
    const hlx_tensor_desc_t* d = hlx_buffer_desc(res[r]);
    size_t count = 1;
    for (int32_t k = 0; k < d->rank; k++) count *= d->dims[k];
    for (size_t i = 0; i < count; i++)
      out->push_back(Element(d, hlx_buffer_data(res[r]), i));
  }
  for (hlx_buffer_t* b : res) hlx_buffer_destroy(b);
  hlx_executable_destroy(e);
  hlx_program_destroy(p);
  return Msg(s);
}

std::string PrintHlo(const std::string& text) {
  hlx_program_t* p = nullptr;
  char* out = nullptr;
  size_t len = 0;
  hlx_status_t s = hlx_program_parse(text.data(), text.size(), "t", 1, &p);
  if (!s) s = hlx_program_print_hlo(p, &out, &len);
  std::string r = s ? "<" + Msg(s) + ">" : std::string(out, len);
  free(out);
  hlx_program_destroy(p);
  return r;
}

std::vector<double> Numbers(const std::string& s) {
  std::vector<double> v;
  std::istringstream in(s);
  double x;
  while (in >> x) v.push_back(x);
  return v;
}

struct Case {
  const char* name;
  const char* hlo;
  const char* stablehlo;
  const char* expected;  // every result's elements, row-major
};

const Case kCases[] = {
    {"concatenate_1d", R"(
ENTRY e {
  a = s32[2] constant({2, 3})
  b = s32[2] constant({4, 5})
  c = s32[2] constant({6, 7})
  ROOT r = s32[6] concatenate(a, b, c), dimensions={0}
})",
     R"(func.func @main() -> tensor<6xi32> {
  %a = stablehlo.constant dense<[2, 3]> : tensor<2xi32>
  %b = stablehlo.constant dense<[4, 5]> : tensor<2xi32>
  %c = stablehlo.constant dense<[6, 7]> : tensor<2xi32>
  %r = stablehlo.concatenate %a, %b, %c, dim = 0 : (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<6xi32>
  return %r : tensor<6xi32>
})",
     "2 3 4 5 6 7"},
    {"concatenate_2d", R"(
ENTRY e {
  a = s32[3,2] constant({{1, 2}, {3, 4}, {5, 6}})
  b = s32[1,2] constant({{7, 8}})
  ROOT r = s32[4,2] concatenate(a, b), dimensions={0}
})",
     R"(func.func @main() -> tensor<4x2xi32> {
  %a = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>
  %b = stablehlo.constant dense<[[7, 8]]> : tensor<1x2xi32>
  %r = stablehlo.concatenate %a, %b, dim = 0 : (tensor<3x2xi32>, tensor<1x2xi32>) -> tensor<4x2xi32>
  return %r : tensor<4x2xi32>
})",
     "1 2 3 4 5 6 7 8"},
    {"slice", R"(
ENTRY e {
  a = f32[5] constant({0, 1, 2, 3, 4})
  b = f32[4,3] constant({{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}})
  s1 = f32[2] slice(a), slice={[2:4]}
  s2 = f32[2,2] slice(b), slice={[2:4], [1:3]}
  ROOT t = (f32[2], f32[2,2]) tuple(s1, s2)
})",
     R"(func.func @main() -> (tensor<2xf32>, tensor<2x2xf32>) {
  %a = stablehlo.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0]> : tensor<5xf32>
  %b = stablehlo.constant dense<[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0], [9.0, 10.0, 11.0]]> : tensor<4x3xf32>
  %s1 = stablehlo.slice %a [2:4] : (tensor<5xf32>) -> tensor<2xf32>
  %s2 = stablehlo.slice %b [2:4, 1:3] : (tensor<4x3xf32>) -> tensor<2x2xf32>
  return %s1, %s2 : tensor<2xf32>, tensor<2x2xf32>
})",
     "2 3  7 8 10 11"},
    {"dynamic_slice", R"(
ENTRY e {
  a = f32[5] constant({0, 1, 2, 3, 4})
  b = f32[4,3] constant({{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}})
  two = s32[] constant(2)
  one = s32[] constant(1)
  s = s32[2] constant({2, 1})
  d1 = f32[2] dynamic-slice(a, two), dynamic_slice_sizes={2}
  d2 = f32[2,2] dynamic-slice(b, two, one), dynamic_slice_sizes={2,2}
  d3 = f32[2,2] dynamic-slice(b, s), dynamic_slice_sizes={2,2}
  ROOT t = (f32[2], f32[2,2], f32[2,2]) tuple(d1, d2, d3)
})",
     R"(func.func @main() -> (tensor<2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %a = stablehlo.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0]> : tensor<5xf32>
  %b = stablehlo.constant dense<[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0], [9.0, 10.0, 11.0]]> : tensor<4x3xf32>
  %two = stablehlo.constant dense<2> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %d1 = stablehlo.dynamic_slice %a, %two, sizes = [2] : (tensor<5xf32>, tensor<i32>) -> tensor<2xf32>
  %d2 = stablehlo.dynamic_slice %b, %two, %one, sizes = [2, 2] : (tensor<4x3xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
  return %d1, %d2, %d2 : tensor<2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
})",
     "2 3  7 8 10 11  7 8 10 11"},
    {"dynamic_update_slice", R"(
ENTRY e {
  a = f32[5] constant({0, 1, 2, 3, 4})
  u = f32[2] constant({5, 6})
  b = f32[4,3] constant({{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}})
  v = f32[3,2] constant({{12, 13}, {14, 15}, {16, 17}})
  two = s32[] constant(2)
  one = s32[] constant(1)
  d1 = f32[5] dynamic-update-slice(a, u, two)
  d2 = f32[4,3] dynamic-update-slice(b, v, one, one)
  ROOT t = (f32[5], f32[4,3]) tuple(d1, d2)
})",
     R"(func.func @main() -> (tensor<5xf32>, tensor<4x3xf32>) {
  %a = stablehlo.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0]> : tensor<5xf32>
  %u = stablehlo.constant dense<[5.0, 6.0]> : tensor<2xf32>
  %b = stablehlo.constant dense<[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0], [9.0, 10.0, 11.0]]> : tensor<4x3xf32>
  %v = stablehlo.constant dense<[[12.0, 13.0], [14.0, 15.0], [16.0, 17.0]]> : tensor<3x2xf32>
  %two = stablehlo.constant dense<2> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %d1 = stablehlo.dynamic_update_slice %a, %u, %two : (tensor<5xf32>, tensor<2xf32>, tensor<i32>) -> tensor<5xf32>
  %d2 = stablehlo.dynamic_update_slice %b, %v, %one, %one : (tensor<4x3xf32>, tensor<3x2xf32>, tensor<i32>, tensor<i32>) -> tensor<4x3xf32>
  return %d1, %d2 : tensor<5xf32>, tensor<4x3xf32>
})",
     "0 1 5 6 4  0 1 2 3 12 13 6 14 15 9 16 17"},
    {"select", R"(
ENTRY e {
  p = pred[4] constant({true, false, false, true})
  q = pred[] constant(true)
  v1 = s32[4] constant({1, 2, 3, 4})
  v2 = s32[4] constant({100, 200, 300, 400})
  a = s32[4] select(p, v1, v2)
  b = s32[4] select(q, v1, v2)
  ROOT t = (s32[4], s32[4]) tuple(a, b)
})",
     R"(func.func @main() -> (tensor<4xi32>, tensor<4xi32>) {
  %p = stablehlo.constant dense<[true, false, false, true]> : tensor<4xi1>
  %q = stablehlo.constant dense<true> : tensor<i1>
  %v1 = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %v2 = stablehlo.constant dense<[100, 200, 300, 400]> : tensor<4xi32>
  %a = stablehlo.select %p, %v1, %v2 : tensor<4xi1>, tensor<4xi32>
  %b = stablehlo.select %q, %v1, %v2 : tensor<i1>, tensor<4xi32>
  return %a, %b : tensor<4xi32>, tensor<4xi32>
})",
     "1 200 300 4  1 2 3 4"},
    {"broadcast", R"(
ENTRY e {
  x = f32[] constant(2)
  v = f32[2] constant({1, 2})
  a = f32[2,3] broadcast(x), dimensions={}
  ROOT b = f32[2,2] broadcast(v), dimensions={1}
})",
     R"(func.func @main() -> tensor<2x2xf32> {
  %v = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = stablehlo.broadcast_in_dim %v, dims = [1] : (tensor<2xf32>) -> tensor<2x2xf32>
  return %b : tensor<2x2xf32>
})",
     "1 2 1 2"},
    {"reduce", R"(
add {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT s = s32[] add(x, y)
}
ENTRY e {
  a = s32[4,2,3] constant({{{1,2,3},{4,5,6}}, {{1,2,3},{4,5,6}}, {{1,2,3},{4,5,6}}, {{1,2,3},{4,5,6}}})
  z = s32[] constant(0)
  r0 = s32[2,3] reduce(a, z), dimensions={0}, to_apply=add
  r2 = s32[4,2] reduce(a, z), dimensions={2}, to_apply=add
  r01 = s32[3] reduce(a, z), dimensions={0,1}, to_apply=add
  all = s32[] reduce(a, z), dimensions={0,1,2}, to_apply=add
  ROOT t = (s32[2,3], s32[4,2], s32[3], s32[]) tuple(r0, r2, r01, all)
})",
     R"(func.func @main() -> (tensor<2x3xi32>, tensor<4x2xi32>, tensor<3xi32>, tensor<i32>) {
  %a = stablehlo.constant dense<[[[1,2,3],[4,5,6]], [[1,2,3],[4,5,6]], [[1,2,3],[4,5,6]], [[1,2,3],[4,5,6]]]> : tensor<4x2x3xi32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %r0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4x2x3xi32>, tensor<i32>) -> tensor<2x3xi32>
  %r2 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [2] : (tensor<4x2x3xi32>, tensor<i32>) -> tensor<4x2xi32>
  %r01 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x2x3xi32>, tensor<i32>) -> tensor<3xi32>
  %all = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<4x2x3xi32>, tensor<i32>) -> tensor<i32>
  return %r0, %r2, %r01, %all : tensor<2x3xi32>, tensor<4x2xi32>, tensor<3xi32>, tensor<i32>
})",
     "4 8 12 16 20 24  6 15 6 15 6 15 6 15  20 28 36  84"},
    {"pad", R"(
ENTRY e {
  a = f32[3] constant({1, 2, 3})
  b = f32[2,2] constant({{1, 2}, {3, 4}})
  z = f32[] constant(0)
  p1 = f32[8] pad(a, z), padding=1_2_1
  p2 = f32[3,2] pad(b, z), padding=0_0_1x-1_1
  ROOT t = (f32[8], f32[3,2]) tuple(p1, p2)
})",
     R"(func.func @main() -> (tensor<8xf32>, tensor<3x2xf32>) {
  %a = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %b = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %p1 = stablehlo.pad %a, %z, low = [1], high = [2], interior = [1] : (tensor<3xf32>, tensor<f32>) -> tensor<8xf32>
  %p2 = stablehlo.pad %b, %z, low = [0, -1], high = [0, 1], interior = [1, 0] : (tensor<2x2xf32>, tensor<f32>) -> tensor<3x2xf32>
  return %p1, %p2 : tensor<8xf32>, tensor<3x2xf32>
})",
     "0 1 0 2 0 3 0 0  2 0 0 0 4 0"},
    {"gather", R"(
ENTRY e {
  a = s32[3,3] constant({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}})
  i = s32[2] constant({0, 2})
  ROOT g = s32[2,3] gather(a, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}
})",
     R"(func.func @main() -> tensor<2x3xi32> {
  %a = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6], [7, 8, 9]]> : tensor<3x3xi32>
  %i = stablehlo.constant dense<[0, 2]> : tensor<2xi32>
  %g = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3>} : (tensor<3x3xi32>, tensor<2xi32>) -> tensor<2x3xi32>
  return %g : tensor<2x3xi32>
})",
     "1 2 3 7 8 9"},
    {"transpose_reverse_iota", R"(
ENTRY e {
  a = s32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  t = s32[3,2] transpose(a), dimensions={1,0}
  r = s32[2,3] reverse(a), dimensions={1}
  i = s32[2,3] iota(), iota_dimension=1
  ROOT u = (s32[3,2], s32[2,3], s32[2,3]) tuple(t, r, i)
})",
     R"(func.func @main() -> (tensor<3x2xi32>, tensor<2x3xi32>, tensor<2x3xi32>) {
  %a = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xi32>) -> tensor<3x2xi32>
  %r = stablehlo.reverse %a, dims = [1] : tensor<2x3xi32>
  %i = stablehlo.iota dim = 1 : tensor<2x3xi32>
  return %t, %r, %i : tensor<3x2xi32>, tensor<2x3xi32>, tensor<2x3xi32>
})",
     "1 4 2 5 3 6  3 2 1 6 5 4  0 1 2 0 1 2"},
    {"bitcast_layouts", R"(
ENTRY e {
  a = s32[2,3]{0,1} constant({{1, 2, 3}, {4, 5, 6}})
  ROOT b = s32[3,2]{1,0} bitcast(a)
})",
     R"(func.func @main() -> tensor<3x2xi32> {
  %a = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %b = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xi32>) -> tensor<3x2xi32>
  return %b : tensor<3x2xi32>
})",
     "1 4 2 5 3 6"},
    {"while_counts", R"(
cond {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = s32[] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  a = s32[] add(acc, i)
  ROOT t = (s32[], s32[]) tuple(j, a)
}
ENTRY e {
  z = s32[] constant(0)
  t = (s32[], s32[]) tuple(z, z)
  w = (s32[], s32[]) while(t), condition=cond, body=body
  ROOT r = s32[] get-tuple-element(w), index=1
})",
     R"(func.func @main() -> tensor<i32> {
  %z = stablehlo.constant dense<0> : tensor<i32>
  %w:2 = stablehlo.while(%i = %z, %acc = %z) : tensor<i32>, tensor<i32>
  cond {
    %n = stablehlo.constant dense<5> : tensor<i32>
    %lt = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    %a = stablehlo.add %acc, %i : tensor<i32>
    stablehlo.return %j, %a : tensor<i32>, tensor<i32>
  }
  return %w#1 : tensor<i32>
})",
     "10"},
    {"conditional", R"(
double {
  p = f32[2] parameter(0)
  ROOT d = f32[2] add(p, p)
}
negate {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p)
}
ENTRY e {
  x = f32[2] constant({1, 2})
  y = f32[2] constant({3, 4})
  t = pred[] constant(true)
  f = pred[] constant(false)
  k = s32[] constant(1)
  a = f32[2] conditional(t, x, y), true_computation=double, false_computation=negate
  b = f32[2] conditional(f, x, y), true_computation=double, false_computation=negate
  c = f32[2] conditional(k, x, y), branch_computations={double, negate}
  ROOT r = (f32[2], f32[2], f32[2]) tuple(a, b, c)
})",
     R"(func.func @main() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %x = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %y = stablehlo.constant dense<[3.0, 4.0]> : tensor<2xf32>
  %d = stablehlo.add %x, %x : tensor<2xf32>
  %n = stablehlo.negate %y : tensor<2xf32>
  return %d, %n, %n : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
})",
     "2 4  -3 -4  -3 -4"},
    {"sort_and_argmax", R"(
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}
argmax {
  m = f32[] parameter(0)
  i = s32[] parameter(1)
  v = f32[] parameter(2)
  k = s32[] parameter(3)
  ge = pred[] compare(v, m), direction=GT
  mv = f32[] select(ge, v, m)
  mk = s32[] select(ge, k, i)
  ROOT t = (f32[], s32[]) tuple(mv, mk)
}
ENTRY e {
  x = f32[4] constant({3, 9, 1, 2})
  s = f32[4] sort(x), dimensions={0}, to_apply=less
  ix = s32[4] iota(), iota_dimension=0
  lo = f32[] constant(-inf)
  z = s32[] constant(0)
  r = (f32[], s32[]) reduce(x, ix, lo, z), dimensions={0}, to_apply=argmax
  m = f32[] get-tuple-element(r), index=0
  k = s32[] get-tuple-element(r), index=1
  ROOT t = (f32[4], f32[], s32[]) tuple(s, m, k)
})",
     R"(func.func @main() -> (tensor<4xf32>, tensor<f32>, tensor<i32>) {
  %s = stablehlo.constant dense<[1.0, 2.0, 3.0, 9.0]> : tensor<4xf32>
  %m = stablehlo.constant dense<9.0> : tensor<f32>
  %k = stablehlo.constant dense<1> : tensor<i32>
  return %s, %m, %k : tensor<4xf32>, tensor<f32>, tensor<i32>
})",
     "1 2 3 9  9  1"},
    {"windows", R"(
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT g = pred[] compare(a, b), direction=GE
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[4,4] constant({{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}, {13, 14, 15, 16}})
  lo = f32[] constant(-inf)
  mp = f32[2,2] reduce-window(x, lo), window={size=2x2 stride=2x2}, to_apply=max
  v = f32[4] constant({1, 5, 2, 6})
  src = f32[2] constant({10, 20})
  z = f32[] constant(0)
  ss = f32[4] select-and-scatter(v, src, z), window={size=2 stride=2}, select=ge, scatter=add
  ROOT t = (f32[2,2], f32[4]) tuple(mp, ss)
})",
     R"(func.func @main() -> (tensor<2x2xf32>, tensor<4xf32>) {
  %mp = stablehlo.constant dense<[[6.0, 8.0], [14.0, 16.0]]> : tensor<2x2xf32>
  %ss = stablehlo.constant dense<[0.0, 10.0, 0.0, 20.0]> : tensor<4xf32>
  return %mp, %ss : tensor<2x2xf32>, tensor<4xf32>
})",
     "6 8 14 16  0 10 0 20"},
    {"async_pairs", R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
sq {
  p = f32[4] parameter(0)
  ROOT m = f32[4] multiply(p, p)
}
ENTRY main {
  x = f32[4] constant({1, 2, 3, 4})
  ars = f32[4] all-reduce-start(x), replica_groups={{0}}, to_apply=add
  ard = f32[4] all-reduce-done(ars)
  ags = (f32[4], f32[4]) all-gather-start(ard), replica_groups={{0}}, dimensions={0}
  agd = f32[4] all-gather-done(ags)
  cps = (f32[4], f32[4], u32[], u32[]) collective-permute-start(agd), source_target_pairs={{0,0}}
  cpd = f32[4] collective-permute-done(cps)
  cs = (f32[4], f32[4], u32[]) copy-start(cpd)
  cd = f32[4] copy-done(cs)
  as = ((f32[4]), f32[4], s32[]) async-start(cd), calls=sq
  au = ((f32[4]), f32[4], s32[]) async-update(as)
  ROOT ad = f32[4] async-done(au)
})",
     R"(func.func @main() -> tensor<4xf32> {
  %x = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %m = stablehlo.multiply %x, %x : tensor<4xf32>
  return %m : tensor<4xf32>
})",
     "1 4 9 16"},
};

TEST(HloSemantics, OperationSemanticsExamples) {
  for (const Case& c : kCases) {
    std::vector<double> got, shlo;
    ASSERT_EQ(RunProgram(c.hlo, &got), "") << c.name;
    EXPECT_EQ(got, Numbers(c.expected)) << c.name;
    if (c.stablehlo) {
      ASSERT_EQ(RunProgram(c.stablehlo, &shlo), "") << c.name;
      EXPECT_EQ(got, shlo) << c.name;
    }
    // The HLO hlx prints runs to the same values.
    std::string printed = PrintHlo(c.hlo);
    std::vector<double> again;
    ASSERT_EQ(RunProgram(printed, &again), "") << c.name << "\n" << printed;
    EXPECT_EQ(got, again) << c.name;
  }
}

TEST(HloSemantics, CallsFusionsMapAndClamp) {
  std::vector<double> got;
  ASSERT_EQ(RunProgram(R"(
mul {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] multiply(a, b)
}
fused {
  p = f32[3] parameter(0)
  q = f32[3] parameter(1)
  ROOT s = f32[3] subtract(p, q)
}
scale {
  p = f32[3] parameter(0)
  two = f32[] constant(2)
  b = f32[3] broadcast(two), dimensions={}
  ROOT s = f32[3] multiply(p, b)
}
ENTRY e {
  x = f32[3] constant({1, 2, 3})
  y = f32[3] constant({4, 5, 6})
  m = f32[3] map(x, y), dimensions={0}, to_apply=mul
  lo = f32[] constant(5)
  hi = f32[] constant(12)
  c = f32[3] clamp(lo, m, hi)
  f = f32[3] fusion(c, x), kind=kLoop, calls=fused
  ROOT r = f32[3] call(f), to_apply=scale
})", &got), "");
  // map: {4, 10, 18}; clamp to [5, 12]: {5, 10, 12}; minus x: {4, 8, 9}.
  EXPECT_EQ(got, Numbers("8 16 18"));
}

// StableHLO programs hlx prints as HLO run the same: several loop values
// (one tuple state), branches reading several outer values (one tuple
// operand), multi-result ops whose results are used apart.
TEST(HloPrinter, StableHloProgramsRunTheSameAsHlo) {
  const char* programs[] = {
      R"(func.func @main() -> (tensor<i32>, tensor<i32>) {
  %z = stablehlo.constant dense<0> : tensor<i32>
  %w:2 = stablehlo.while(%i = %z, %acc = %z) : tensor<i32>, tensor<i32>
  cond {
    %n = stablehlo.constant dense<4> : tensor<i32>
    %lt = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    %a = stablehlo.add %acc, %j : tensor<i32>
    stablehlo.return %j, %a : tensor<i32>, tensor<i32>
  }
  return %w#0, %w#1 : tensor<i32>, tensor<i32>
})",
      R"(func.func @main() -> (tensor<2xf32>, tensor<f32>) {
  %x = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %y = stablehlo.constant dense<[3.0, 5.0]> : tensor<2xf32>
  %p = stablehlo.constant dense<false> : tensor<i1>
  %r:2 = "stablehlo.if"(%p) ({
    %c = stablehlo.constant dense<1.0> : tensor<f32>
    stablehlo.return %x, %c : tensor<2xf32>, tensor<f32>
  }, {
    %s = stablehlo.add %x, %y : tensor<2xf32>
    %c = stablehlo.constant dense<2.0> : tensor<f32>
    stablehlo.return %s, %c : tensor<2xf32>, tensor<f32>
  }) : (tensor<i1>) -> (tensor<2xf32>, tensor<f32>)
  return %r#0, %r#1 : tensor<2xf32>, tensor<f32>
})",
      R"(func.func @main() -> (tensor<3xf32>, tensor<3xi32>) {
  %x = stablehlo.constant dense<[3.0, 1.0, 2.0]> : tensor<3xf32>
  %i = stablehlo.iota dim = 0 : tensor<3xi32>
  %s:2 = "stablehlo.sort"(%x, %i) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
    %lt = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<3xf32>, tensor<3xi32>) -> (tensor<3xf32>, tensor<3xi32>)
  %n = stablehlo.negate %s#0 : tensor<3xf32>
  return %n, %s#1 : tensor<3xf32>, tensor<3xi32>
})",
  };
  const char* expected[] = {"4 10", "4 7 2", "-1 -2 -3 1 2 0"};
  for (int k = 0; k < 3; k++) {
    std::vector<double> a, b;
    ASSERT_EQ(RunProgram(programs[k], &a), "") << programs[k];
    EXPECT_EQ(a, Numbers(expected[k])) << programs[k];
    std::string printed = PrintHlo(programs[k]);
    ASSERT_EQ(RunProgram(printed, &b), "") << printed;
    EXPECT_EQ(a, b) << printed;
  }
}

}  // namespace
