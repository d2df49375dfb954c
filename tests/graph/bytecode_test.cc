// The MLIR bytecode reader on files made by tests/graph/bytecode_writer.h:
// VHLO programs of every bytecode version give the IR the text parser
// gives their StableHLO text; corrupt, truncated and hostile files give a
// status naming the byte offset, never a crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "graph/stablehlo/bytecode.h"
#include "tests/graph/bytecode_writer.h"
#include "tests/graph/test_util.h"

extern "C" {
#include "graph/stablehlo/bytecode_convert.h"
}

namespace {

using hlx_bc_test::Block;
using hlx_bc_test::Bytes;
using hlx_bc_test::Op;
using hlx_bc_test::Region;

// VHLO type and attribute codes (stablehlo/dialect/VhloBytecode.cpp).
enum { kBool = 0, kF32 = 4, kFunction = 8, kIndex = 9, kI32 = 13, kI64 = 14,
       kTensor = 20 };
enum { kArray = 1, kBoolean = 2, kDirection = 3, kCmpType = 4, kApiVersion = 5,
       kDict = 6, kInteger = 9, kString = 14, kTensorAttr = 15, kTypeAttr = 17 };

// Builds VHLO programs: dialects, types, attributes, ops with their
// inherent attributes as properties (version >= 5) or in the attribute
// dictionary (older versions), as StableHLO's serializer writes them.
class Vhlo {
 public:
  explicit Vhlo(uint64_t version) : version(version), w(version) {
    builtin = w.Dialect("builtin");
    vhlo = w.Dialect("vhlo");
    loc = w.Attr(builtin, Bytes().VarInt(15));  // unknown location
    module_op = w.OpName(builtin, "module");
  }
  uint64_t version;
  hlx_bc_test::Writer w;
  uint32_t builtin, vhlo;
  uint64_t loc, module_op;

  uint64_t T(int code) {
    auto it = scalar_.find(code);
    if (it != scalar_.end()) return it->second;
    return scalar_[code] = w.Type(vhlo, Bytes().VarInt(code));
  }
  uint64_t Tensor(std::vector<int64_t> dims, int elem) {
    Bytes b;
    b.VarInt(kTensor).VarInt(dims.size());
    for (int64_t d : dims) b.SVarInt(d);
    return w.Type(vhlo, b.VarInt(T(elem)));
  }
  uint64_t FuncType(std::vector<uint64_t> in, std::vector<uint64_t> out) {
    Bytes b;
    b.VarInt(kFunction).VarInt(in.size());
    for (uint64_t t : in) b.VarInt(t);
    b.VarInt(out.size());
    for (uint64_t t : out) b.VarInt(t);
    return w.Type(vhlo, b);
  }
  uint64_t Str(const std::string& s) {
    return w.Attr(vhlo, Bytes().VarInt(kString).VarInt(w.Str(s)));
  }
  uint64_t Int(int64_t v, int type) {
    return w.Attr(vhlo, Bytes().VarInt(kInteger).VarInt(T(type)).SVarInt(v));
  }
  uint64_t Bool(bool v) { return w.Attr(vhlo, Bytes().VarInt(kBoolean).VarInt(v)); }
  uint64_t Enum(int code, int v) { return w.Attr(vhlo, Bytes().VarInt(code).VarInt(v)); }
  uint64_t Array(std::vector<uint64_t> items) {
    Bytes b;
    b.VarInt(kArray).VarInt(items.size());
    for (uint64_t i : items) b.VarInt(i);
    return w.Attr(vhlo, b);
  }
  uint64_t Dict(std::vector<std::pair<std::string, uint64_t>> kv) {
    Bytes b;
    b.VarInt(kDict).VarInt(kv.size());
    for (auto& e : kv) b.VarInt(Str(e.first)).VarInt(e.second);
    return w.Attr(vhlo, b);
  }
  uint64_t TypeAttr(uint64_t t) { return w.Attr(vhlo, Bytes().VarInt(kTypeAttr).VarInt(t)); }
  uint64_t TensorAttr(uint64_t type, const std::string& data) {
    return w.Attr(vhlo, Bytes().VarInt(kTensorAttr).VarInt(type).Blob(data));
  }
  uint64_t I64s(std::vector<int64_t> v) {
    std::string d(v.size() * 8, '\0');
    if (!v.empty()) memcpy(&d[0], v.data(), d.size());
    return TensorAttr(Tensor({(int64_t)v.size()}, kI64), d);
  }
  // builtin dictionary {name = attr, ...} with builtin string names
  uint64_t BuiltinDict(std::vector<std::pair<std::string, uint64_t>> kv) {
    Bytes b;
    b.VarInt(1).VarInt(kv.size());
    for (auto& e : kv)
      b.VarInt(w.Attr(builtin, Bytes().VarInt(2).VarInt(w.Str(e.first)))).VarInt(e.second);
    return w.Attr(builtin, b);
  }

  // An op named vhlo.<name> with inherent attributes (sorted here by name,
  // the properties order) and discardable ones.
  Op MakeOp(const std::string& name, std::vector<int> operands,
            std::vector<uint64_t> result_types,
            std::vector<std::pair<std::string, uint64_t>> inherent = {},
            std::vector<std::pair<std::string, uint64_t>> discardable = {}) {
    Op op;
    op.name = OpName(name);
    op.loc = loc;
    op.operands = operands;
    op.result_types = result_types;
    for (size_t i = 0; i < result_types.size(); i++) op.results.push_back(w.Value());
    std::sort(inherent.begin(), inherent.end());
    if (version >= 5 && !inherent.empty()) {
      op.has_props = true;
      for (auto& a : inherent) op.props.VarInt(a.second);
    } else {
      discardable.insert(discardable.begin(), inherent.begin(), inherent.end());
    }
    if (!discardable.empty()) op.attrs = BuiltinDict(discardable);
    return op;
  }

  Op Func(const std::string& name, std::vector<uint64_t> in, std::vector<uint64_t> out,
          std::vector<int> args, std::vector<Op> body, bool is_private = false,
          std::vector<std::pair<std::string, uint64_t>> extra = {}) {
    std::vector<std::pair<std::string, uint64_t>> a = {
        {"sym_name", Str(name)},
        {"function_type", TypeAttr(FuncType(in, out))},
        {"sym_visibility", Str(is_private ? "private" : "")},
        {"arg_attrs", Array({})},
        {"res_attrs", Array({})}};
    for (auto& e : extra)
      for (auto& x : a)
        if (x.first == e.first) x.second = e.second;
    Op f = MakeOp("func_v1", {}, {}, a);
    f.isolated = true;
    Block b;
    b.arg_types = in;
    b.args = args;
    b.ops = std::move(body);
    f.regions.push_back(Region{{b}});
    return f;
  }

  std::string Module(const std::string& name, std::vector<Op> funcs,
                     std::vector<std::pair<std::string, uint64_t>> attrs = {}) {
    Op m;
    m.name = module_op;
    m.loc = loc;
    uint64_t sym = w.Attr(builtin, Bytes().VarInt(2).VarInt(w.Str(name)));
    if (version >= 5) {
      m.has_props = true;
      m.props.Flag(sym, true).Flag(0, false);
    } else {
      attrs.push_back({"sym_name", sym});
    }
    if (!attrs.empty()) m.attrs = BuiltinDict(attrs);
    m.isolated = true;
    Block b;
    b.ops = std::move(funcs);
    m.regions.push_back(Region{{b}});
    return w.Finish({m});
  }

  uint64_t OpName(const std::string& name) {
    auto it = ops_.find(name);
    if (it != ops_.end()) return it->second;
    return ops_[name] = w.OpName(vhlo, name);
  }

 private:
  std::map<int, uint64_t> scalar_;
  std::map<std::string, uint64_t> ops_;
};

struct Result {
  hlx_test::ModulePtr m;
  std::string err;
  hlx_status_code_t code = HLX_STATUS_OK;
};

void ParseBc(const std::string& data, Result* r) {
  hlx_module_t* m = nullptr;
  hlx_status_t s = hlx_parse_bytecode(data.data(), data.size(), "t.mlirbc", &m);
  if (s) {
    r->err = hlx_status_message(s);
    r->code = hlx_status_code(s);
    hlx_status_free(s);
    EXPECT_EQ(m, nullptr);
    return;
  }
  r->m.m = m;
}

// The bytecode must parse to the IR the text parser gives `text`.
void ExpectSameAsText(const std::string& data, const std::string& text) {
  Result r;
  ParseBc(data, &r);
  ASSERT_EQ(r.err, "");
  hlx_test::ModulePtr t;
  std::string err;
  ASSERT_TRUE(hlx_test::Parse(text, &t, &err)) << err;
  char why[512] = "";
  EXPECT_TRUE(hlx_module_equal(t.get(), r.m.get(), why, sizeof why))
      << why << "\n--- bytecode printed:\n" << hlx_test::Print(r.m.get());
  EXPECT_EQ(hlx_test::RoundTrip(r.m.get()), "");
}

// ---- Programs ------------------------------------------------------------------

std::string AddProgram(uint64_t version) {
  Vhlo v(version);
  uint64_t t = v.Tensor({2}, kF32);
  int a = v.w.Value();
  Op add = v.MakeOp("add_v1", {a, a}, {t});
  Op ret = v.MakeOp("return_v1", {add.results[0]}, {});
  return v.Module("m", {v.Func("main", {t}, {t}, {a}, {add, ret})});
}

TEST(Bytecode, AddInEveryVersion) {
  for (uint64_t version = 0; version <= 6; version++) {
    SCOPED_TRACE("bytecode version " + std::to_string(version));
    ExpectSameAsText(AddProgram(version), R"(
      module @m {
        func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
          %0 = stablehlo.add %a, %a : tensor<2xf32>
          return %0 : tensor<2xf32>
        }
      })");
  }
}

// Constants (dense, bit-packed i1, splat), dense-array attributes, enums,
// a custom_call whose default attributes are dropped, argument/result and
// module attributes, a private function.
std::string AttributesProgram(uint64_t version) {
  Vhlo v(version);
  uint64_t f3 = v.Tensor({3}, kF32), b3 = v.Tensor({3}, kBool), i4 = v.Tensor({4}, kI32);
  uint64_t f23 = v.Tensor({2, 3}, kF32);
  int a = v.w.Value();
  float fv[3] = {1.0f, 2.0f, 3.0f};
  std::string fd(reinterpret_cast<const char*>(fv), 12);
  int32_t seven = 7;
  Op c = v.MakeOp("constant_v1", {}, {f3}, {{"value", v.TensorAttr(f3, fd)}});
  Op b = v.MakeOp("constant_v1", {}, {b3}, {{"value", v.TensorAttr(b3, "\x05")}});
  Op s = v.MakeOp("constant_v1", {}, {i4},
                  {{"value", v.TensorAttr(i4, std::string(reinterpret_cast<char*>(&seven), 4))}});
  Op bc = v.MakeOp("broadcast_in_dim_v1", {a}, {f23},
                   {{"broadcast_dimensions", v.I64s({1})}});
  Op cmp = v.MakeOp("compare_v1", {a, c.results[0]}, {b3},
                    {{"comparison_direction", v.Enum(kDirection, 3)},
                     {"compare_type", v.Enum(kCmpType, 1)}});
  Op cc = v.MakeOp(
      "custom_call_v1", {a}, {f3},
      {{"api_version", v.Enum(kApiVersion, 2)}, {"backend_config", v.Str("")},
       {"call_target_name", v.Str("foo")}, {"called_computations", v.Array({})},
       {"has_side_effect", v.Bool(false)},
       {"operand_layouts", v.Array({v.I64s({0})})}, {"output_operand_aliases", v.Array({})},
       {"result_layouts", v.Array({v.TensorAttr(v.Tensor({1}, kIndex), std::string(8, '\0'))})}},
      {{"mhlo.frontend_attributes", v.Dict({{"k", v.Str("v")}})}});
  Op ret = v.MakeOp("return_v1", {bc.results[0]}, {});
  Op f = v.Func("f", {f3}, {f23}, {a}, {c, b, s, bc, cmp, cc, ret}, true,
                {{"arg_attrs", v.Array({v.Dict({{"jax.arg_info", v.Str("a")}})})},
                 {"res_attrs", v.Array({v.Dict({{"jax.result_info", v.Str("r")}})})}});
  uint64_t i32 = v.w.Type(v.builtin, Bytes().VarInt(0).VarInt(32 << 2));
  uint64_t i1 = v.w.Type(v.builtin, Bytes().VarInt(0).VarInt(1 << 2));
  uint64_t index = v.w.Type(v.builtin, Bytes().VarInt(1));
  return v.Module("m", {f},
                  {{"mhlo.num_partitions", v.w.Attr(v.builtin, Bytes().VarInt(8).VarInt(i32).SVarInt(1))},
                   {"flag", v.w.Attr(v.builtin, Bytes().VarInt(8).VarInt(i1).Byte(1))},
                   {"n", v.w.Attr(v.builtin, Bytes().VarInt(8).VarInt(index).SVarInt(5))}});
}

TEST(Bytecode, AttributesMatchText) {
  for (uint64_t version : {1, 4, 6}) {
    SCOPED_TRACE("bytecode version " + std::to_string(version));
    ExpectSameAsText(AttributesProgram(version), R"(
      module @m attributes {mhlo.num_partitions = 1 : i32, flag = true, n = 5 : index} {
        func.func private @f(%a: tensor<3xf32> {jax.arg_info = "a"})
            -> (tensor<2x3xf32> {jax.result_info = "r"}) {
          %c = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
          %b = stablehlo.constant dense<[true, false, true]> : tensor<3xi1>
          %s = stablehlo.constant dense<7> : tensor<4xi32>
          %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
          %1 = stablehlo.compare GT, %a, %c, FLOAT : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
          %2 = stablehlo.custom_call @foo(%a) {api_version = 2 : i32,
              operand_layouts = [dense<0> : tensor<1xi64>],
              result_layouts = [dense<0> : tensor<1xindex>],
              mhlo.frontend_attributes = {k = "v"}} : (tensor<3xf32>) -> tensor<3xf32>
          return %0 : tensor<2x3xf32>
        }
      })");
  }
}

// `index` is an attribute element type only, as in the text parser.
TEST(Bytecode, IndexValuesAreUnsupported) {
  for (bool as_result : {false, true}) {
    Vhlo v(6);
    uint64_t t = v.Tensor({2}, kIndex), f = v.Tensor({2}, kF32);
    int a = v.w.Value();
    Op ret = v.MakeOp("return_v1", {a}, {});
    Result r;
    ParseBc(v.Module("m", {as_result ? v.Func("main", {f}, {t}, {a}, {ret})
                                     : v.Func("main", {t}, {t}, {a}, {ret})}),
            &r);
    EXPECT_EQ(r.code, HLX_STATUS_UNIMPLEMENTED) << r.err;
    EXPECT_NE(r.err.find("index"), std::string::npos) << r.err;
  }
}

// Nested regions number their values after those of the regions around
// them; a while body uses a value of the function's block; func.call.
std::string RegionsProgram(uint64_t version) {
  Vhlo v(version);
  uint64_t t = v.Tensor({}, kI32), p = v.Tensor({}, kBool);
  int x = v.w.Value(), y = v.w.Value();
  int ca = v.w.Value(), cb = v.w.Value(), ba = v.w.Value(), bb = v.w.Value();
  Op lt = v.MakeOp("compare_v1", {ca, cb}, {p},
                   {{"comparison_direction", v.Enum(kDirection, 5)},
                    {"compare_type", v.Enum(kCmpType, 0)}});
  Op cret = v.MakeOp("return_v1", {lt.results[0]}, {});
  Op sum = v.MakeOp("add_v1", {ba, y}, {t});
  Op bret = v.MakeOp("return_v1", {sum.results[0], bb}, {});
  Op loop = v.MakeOp("while_v1", {x, y}, {t, t});
  loop.regions.push_back(Region{{Block{{t, t}, {ca, cb}, {lt, cret}}}});
  loop.regions.push_back(Region{{Block{{t, t}, {ba, bb}, {sum, bret}}}});
  Op call = v.MakeOp("call_v1", {loop.results[0]}, {t}, {{"callee", v.Str("g")}});
  Op ret = v.MakeOp("return_v1", {call.results[0]}, {});
  int z = v.w.Value();
  Op gret = v.MakeOp("return_v1", {z}, {});
  return v.Module("m", {v.Func("main", {t, t}, {t}, {x, y}, {loop, call, ret}),
                        v.Func("g", {t}, {t}, {z}, {gret}, true)});
}

TEST(Bytecode, RegionsAndCalls) {
  for (uint64_t version : {0, 2, 6}) {
    SCOPED_TRACE("bytecode version " + std::to_string(version));
    ExpectSameAsText(RegionsProgram(version), R"(
      module @m {
        func.func @main(%x: tensor<i32>, %y: tensor<i32>) -> tensor<i32> {
          %0:2 = "stablehlo.while"(%x, %y) ({
          ^bb0(%a: tensor<i32>, %b: tensor<i32>):
            %c = stablehlo.compare LT, %a, %b : (tensor<i32>, tensor<i32>) -> tensor<i1>
            stablehlo.return %c : tensor<i1>
          }, {
          ^bb0(%a: tensor<i32>, %b: tensor<i32>):
            %s = stablehlo.add %a, %y : tensor<i32>
            stablehlo.return %s, %b : tensor<i32>, tensor<i32>
          }) : (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)
          %1 = func.call @g(%0#0) : (tensor<i32>) -> tensor<i32>
          return %1 : tensor<i32>
        }
        func.func private @g(%z: tensor<i32>) -> tensor<i32> {
          return %z : tensor<i32>
        }
      })");
  }
}

// VHLO keeps dimension numbers as separate attributes; the IR has the
// #stablehlo struct of the text form (gather omits empty fields).
TEST(Bytecode, DimensionNumbersImplode) {
  Vhlo v(6);
  uint64_t a23 = v.Tensor({2, 3}, kF32), b34 = v.Tensor({3, 4}, kF32);
  uint64_t c24 = v.Tensor({2, 4}, kF32), idx = v.Tensor({1}, kI32), g = v.Tensor({3}, kF32);
  int a = v.w.Value(), b = v.w.Value(), i = v.w.Value();
  Op dot = v.MakeOp("dot_general_v1", {a, b}, {c24},
                    {{"lhs_batching_dimensions", v.I64s({})},
                     {"rhs_batching_dimensions", v.I64s({})},
                     {"lhs_contracting_dimensions", v.I64s({1})},
                     {"rhs_contracting_dimensions", v.I64s({0})},
                     {"precision_config", v.Array({v.Enum(11, 0), v.Enum(11, 0)})}});
  Op gather = v.MakeOp("gather_v2", {a, i}, {g},
                       {{"offset_dims", v.I64s({0})},
                        {"collapsed_slice_dims", v.I64s({0})},
                        {"operand_batching_dims", v.I64s({})},
                        {"start_indices_batching_dims", v.I64s({})},
                        {"start_index_map", v.I64s({0})},
                        {"index_vector_dim", v.Int(0, kI64)},
                        {"slice_sizes", v.I64s({1, 3})},
                        {"indices_are_sorted", v.Bool(true)}});
  Op ret = v.MakeOp("return_v1", {dot.results[0]}, {});
  std::string data = v.Module("m", {v.Func("main", {a23, b34, idx}, {c24}, {a, b, i},
                                           {dot, gather, ret})});
  ExpectSameAsText(data, R"(
    module @m {
      func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %i: tensor<1xi32>)
          -> tensor<2x4xf32> {
        %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0]
            : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
        %1 = "stablehlo.gather"(%a, %i) <{dimension_numbers = #stablehlo.gather<
              offset_dims = [0], collapsed_slice_dims = [0], start_index_map = [0]>,
              indices_are_sorted = true, slice_sizes = array<i64: 1, 3>}>
            : (tensor<2x3xf32>, tensor<1xi32>) -> tensor<3xf32>
        return %0 : tensor<2x4xf32>
      }
    })");
}

// A dense_resource with its blob in the file is data; without, elided.
TEST(Bytecode, DenseResource) {
  Vhlo v(6);
  uint64_t t = v.Tensor({2}, kF32);
  uint64_t bt = v.w.Type(v.builtin, Bytes().VarInt(13).VarInt(1).SVarInt(2).VarInt(
                                        v.w.Type(v.builtin, Bytes().VarInt(5))));
  float vals[2] = {1.5f, -2.0f};
  std::string blob(reinterpret_cast<const char*>(vals), 8);
  uint64_t full = v.w.Resource(v.builtin, "weights", &blob);
  uint64_t elided = v.w.Resource(v.builtin, "__elided__", nullptr);
  auto resource_attr = [&](uint64_t handle) {
    return v.w.Attr(v.builtin, Bytes().VarInt(16).VarInt(bt).VarInt(handle));
  };
  Op c0 = v.MakeOp("constant_v1", {}, {t}, {{"value", resource_attr(full)}});
  Op c1 = v.MakeOp("constant_v1", {}, {t}, {{"value", resource_attr(elided)}});
  Op ret = v.MakeOp("return_v1", {c0.results[0]}, {});
  Result r;
  ParseBc(v.Module("m", {v.Func("main", {}, {t}, {}, {c0, c1, ret})}), &r);
  ASSERT_EQ(r.err, "");
  hlx_block_t* blk = r.m.get()->funcs[0]->body->blocks[0];
  const hlx_attr_t* d = hlx_op_attr(blk->ops[0], "value");
  const hlx_attr_t* e = hlx_op_attr(blk->ops[1], "value");
  ASSERT_TRUE(d && e);
  ASSERT_EQ(d->kind, HLX_ATTR_DENSE);
  ASSERT_EQ(d->dense_bytes, 8u);
  EXPECT_EQ(memcmp(d->dense, vals, 8), 0);
  EXPECT_EQ(e->kind, HLX_ATTR_ELIDED);
  EXPECT_STREQ(e->str, "__elided__");
}

// An op whose name hlx has no table entry for maps generically when its
// attributes are a dictionary (version < 5), but its properties layout is
// unknown from version 5 on.
TEST(Bytecode, UnknownVhloOps) {
  for (uint64_t version : {4, 6}) {
    Vhlo v(version);
    uint64_t t = v.Tensor({}, kF32);
    int a = v.w.Value();
    Op op = v.MakeOp("frobnicate_v3", {a}, {t}, {{"level", v.Int(2, kI64)}});
    Op ret = v.MakeOp("return_v1", {op.results[0]}, {});
    Result r;
    ParseBc(v.Module("m", {v.Func("main", {t}, {t}, {a}, {op, ret})}), &r);
    if (version < 5) {
      ASSERT_EQ(r.err, "");
      const hlx_op_t* o = r.m.get()->funcs[0]->body->blocks[0]->ops[0];
      EXPECT_STREQ(o->name, "stablehlo.frobnicate");
      EXPECT_TRUE(hlx_op_attr(o, "level"));
    } else {
      EXPECT_EQ(r.code, HLX_STATUS_UNIMPLEMENTED);
      EXPECT_NE(r.err.find("vhlo.frobnicate_v3"), std::string::npos) << r.err;
    }
  }
}

// ---- Errors --------------------------------------------------------------------

TEST(BytecodeErrors, NotBytecodeAndNewerVersions) {
  Result r;
  ParseBc("module {}", &r);
  EXPECT_NE(r.err.find("magic"), std::string::npos) << r.err;
  std::string newer = AddProgram(6);
  newer[4] = static_cast<char>((7 << 1) | 1);
  Result n;
  ParseBc(newer, &n);
  EXPECT_EQ(n.code, HLX_STATUS_UNIMPLEMENTED);
  EXPECT_NE(n.err.find("bytecode version 7"), std::string::npos) << n.err;
}

// Every prefix of a valid file is an error that names a byte offset.
TEST(BytecodeErrors, EveryTruncation) {
  for (uint64_t version : {0, 6}) {
    std::string data = AttributesProgram(version);
    for (size_t n = 0; n < data.size(); n++) {
      Result r;
      ParseBc(data.substr(0, n), &r);
      ASSERT_NE(r.err, "") << "prefix of " << n << " bytes parsed";
      if (n >= 4) EXPECT_NE(r.err.find("byte"), std::string::npos) << r.err;
    }
  }
}

// Every single-byte corruption of valid files parses or fails cleanly (the
// sanitizers check "cleanly"); parsed modules must round-trip.
TEST(BytecodeErrors, EveryByteFlip) {
  int failed = 0, parsed = 0;
  for (const std::string& data : {AttributesProgram(6), RegionsProgram(2)}) {
    for (size_t i = 0; i < data.size(); i++)
      for (uint8_t x : {0x01, 0x80, 0xff}) {
        std::string bad = data;
        bad[i] = static_cast<char>(bad[i] ^ x);
        Result r;
        ParseBc(bad, &r);
        if (r.err.empty()) {
          parsed++;
          EXPECT_EQ(hlx_test::RoundTrip(r.m.get()), "") << "flip at " << i;
        } else {
          failed++;
        }
      }
  }
  EXPECT_GT(failed, 0);
  std::printf("byte flips: %d rejected, %d still parse\n", failed, parsed);
}

// An attribute that contains itself, an out-of-range value, an absurd
// count: errors, not recursion, garbage or huge allocations.
TEST(BytecodeErrors, HostileReferences) {
  {
    Vhlo v(6);
    uint64_t t = v.Tensor({}, kF32);
    uint64_t self =
        v.w.Attr(v.vhlo, Bytes().VarInt(kArray).VarInt(1).VarInt(v.w.NumAttrs()));
    int a = v.w.Value();
    Op op = v.MakeOp("add_v1", {a, a}, {t}, {}, {{"x", self}});
    Op ret = v.MakeOp("return_v1", {op.results[0]}, {});
    Result r;
    ParseBc(v.Module("m", {v.Func("main", {t}, {t}, {a}, {op, ret})}), &r);
    EXPECT_NE(r.err.find("refers to itself"), std::string::npos) << r.err;
  }
  {
    Vhlo v(6);
    uint64_t t = v.Tensor({}, kF32);
    int a = v.w.Value(), never = v.w.Value();
    Op op = v.MakeOp("add_v1", {a, never}, {t});
    Op ret = v.MakeOp("return_v1", {op.results[0]}, {});
    Result r;
    ParseBc(v.Module("m", {v.Func("main", {t}, {t}, {a}, {op, ret})}), &r);
    EXPECT_NE(r.err.find("value"), std::string::npos) << r.err;
  }
  {
    Bytes b;
    b.Raw(std::string("ML\xefR", 4)).VarInt(6).Raw(std::string("x\0", 2));
    Bytes strings;
    strings.VarInt(uint64_t(1) << 40);
    b.Byte(0).VarInt(strings.b.size()).Add(strings);
    Result r;
    ParseBc(b.b, &r);
    EXPECT_NE(r.err, "");
  }
}

TEST(Bytecode, VhloTableIsSorted) {
  int32_t n = 0;
  const hlx_vhlo_op_t* ops = hlx_vhlo_ops(&n);
  ASSERT_GT(n, 100);
  for (int32_t i = 0; i < n; i++) {
    if (i > 0) EXPECT_LT(strcmp(ops[i - 1].name, ops[i].name), 0) << ops[i].name;
    EXPECT_EQ(hlx_vhlo_op_find(ops[i].name, strlen(ops[i].name)), &ops[i]);
    for (const char* const* a = ops[i].attrs; a && a[0] && a[1]; a++)
      EXPECT_LT(strcmp(a[0], a[1]), 0) << ops[i].name << ": " << a[0] << ", " << a[1];
  }
  EXPECT_EQ(hlx_vhlo_op_find("add_v", 5), nullptr);
}

}  // namespace
