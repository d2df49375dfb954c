// Tests of tools/summary.{h,c}: exact text and JSON for small tensors of
// each kind of dtype, non-finite values, truncation and errors.
#include "tools/summary.h"

#include <gtest/gtest.h>

#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "base/float_formats.h"

namespace {

// Independent FNV-1a 64, formatted as the summary prints it.
std::string Fnv(const void* p, size_t n) {
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < n; i++) {
    h ^= static_cast<const uint8_t*>(p)[i];
    h *= 1099511628211ull;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, h);
  return buf;
}

std::string Text(hlx_dtype_t t, std::vector<int64_t> dims, const void* data,
                 int max_values) {
  char* out = nullptr;
  hlx_status_t s = hlx_tensor_summary(t, static_cast<int32_t>(dims.size()),
                                      dims.data(), data, max_values, &out);
  EXPECT_EQ(s, nullptr) << hlx_status_message(s);
  hlx_status_free(s);
  std::string r = out ? out : "<null>";
  std::free(out);
  return r;
}

std::string Json(hlx_dtype_t t, std::vector<int64_t> dims, const void* data,
                 int max_values) {
  char* out = nullptr;
  hlx_status_t s = hlx_tensor_summary_json(t, static_cast<int32_t>(dims.size()),
                                           dims.data(), data, max_values, &out);
  EXPECT_EQ(s, nullptr) << hlx_status_message(s);
  hlx_status_free(s);
  std::string r = out ? out : "<null>";
  std::free(out);
  return r;
}

TEST(Fnv1a64, KnownVectors) {
  EXPECT_EQ(hlx_fnv1a64("", 0), 0xcbf29ce484222325ull);
  EXPECT_EQ(hlx_fnv1a64("a", 1), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(hlx_fnv1a64("foobar", 6), 0x85944171f73967e8ull);
}

TEST(Summary, F32Matrix) {
  float v[6] = {0.5f, -1.25f, 3.0f, 0.0f, 1.0f, 1.25f};
  EXPECT_EQ(Text(HLX_DTYPE_F32, {2, 3}, v, 3),
            "f32[2,3] first=[0.5, -1.25, 3, ...] min=-1.25 max=3 mean=0.75 "
            "nan=0 checksum=" +
                Fnv(v, sizeof v));
  EXPECT_EQ(Text(HLX_DTYPE_F32, {2, 3}, v, 3),
            "f32[2,3] first=[0.5, -1.25, 3, ...] min=-1.25 max=3 mean=0.75 "
            "nan=0 checksum=0xea8190b5325ea525");
  EXPECT_EQ(Json(HLX_DTYPE_F32, {2, 3}, v, 3),
            "{\"dtype\":\"f32\",\"shape\":[2,3],\"count\":6,"
            "\"first\":[0.5,-1.25,3],\"truncated\":true,\"min\":-1.25,"
            "\"max\":3,\"mean\":0.75,\"nan\":0,\"checksum\":\"" +
                Fnv(v, sizeof v) + "\"}");
  // Every value (max_values < 0, or larger than the count).
  EXPECT_EQ(Text(HLX_DTYPE_F32, {2, 3}, v, -1),
            "f32[2,3] first=[0.5, -1.25, 3, 0, 1, 1.25] min=-1.25 max=3 "
            "mean=0.75 nan=0 checksum=" +
                Fnv(v, sizeof v));
  EXPECT_EQ(Text(HLX_DTYPE_F32, {2, 3}, v, 100),
            Text(HLX_DTYPE_F32, {2, 3}, v, 6));
  // None.
  EXPECT_EQ(Text(HLX_DTYPE_F32, {6}, v, 0),
            "f32[6] first=[...] min=-1.25 max=3 mean=0.75 nan=0 checksum=" +
                Fnv(v, sizeof v));
}

TEST(Summary, ShortestFloatForms) {
  float f[3] = {0.1f, 1e-8f, 16777216.0f};
  std::string s = Text(HLX_DTYPE_F32, {3}, f, 3);
  EXPECT_EQ(s.rfind("f32[3] first=[0.1, 1e-08, 16777216] min=1e-08 ", 0), 0u)
      << s;
  // Integers below 1e16 in full, larger and tiny values in exponent form.
  float big[3] = {1e10f, 1e20f, -123456792.0f};
  s = Text(HLX_DTYPE_F32, {3}, big, 3);
  EXPECT_EQ(s.rfind("f32[3] first=[10000000000, 1e+20, -123456792] ", 0), 0u)
      << s;
  double d[2] = {0.1, 1.0 / 3.0};
  s = Text(HLX_DTYPE_F64, {2}, d, 2);
  EXPECT_NE(s.find("first=[0.1, 0.3333333333333333]"), std::string::npos) << s;
  EXPECT_NE(s.find("min=0.1 max=0.3333333333333333 "), std::string::npos) << s;
  // f16 0.1 is 0.0999755859375 but prints as the shortest f16 spelling.
  uint16_t h[2] = {hlx_f32_to_f16(0.1f), hlx_f32_to_f16(-65504.0f)};
  s = Text(HLX_DTYPE_F16, {2}, h, 2);
  EXPECT_EQ(s.rfind("f16[2] first=[0.1, -65504] min=-65504 max=0.1 ", 0), 0u)
      << s;
  uint16_t b[1] = {0x3fc0};  // bf16 1.5
  EXPECT_EQ(Text(HLX_DTYPE_BF16, {}, b, 4),
            "bf16[] first=[1.5] min=1.5 max=1.5 mean=1.5 nan=0 checksum=" +
                Fnv(b, 2));
  uint8_t e4[2] = {0x38, 0x7f};  // f8E4M3FN 1.0 and NaN
  EXPECT_EQ(Text(HLX_DTYPE_F8E4M3FN, {2}, e4, 2),
            "f8E4M3FN[2] first=[1, nan] min=1 max=1 mean=1 nan=1 checksum=" +
                Fnv(e4, 2));
}

TEST(Summary, NonFiniteFloats) {
  float v[4] = {std::numeric_limits<float>::quiet_NaN(),
                std::numeric_limits<float>::infinity(),
                -std::numeric_limits<float>::infinity(), 2.0f};
  EXPECT_EQ(Text(HLX_DTYPE_F32, {4}, v, 4),
            "f32[4] first=[nan, inf, -inf, 2] min=-inf max=inf mean=nan "
            "nan=1 checksum=" +
                Fnv(v, sizeof v));
  EXPECT_EQ(Json(HLX_DTYPE_F32, {4}, v, 4),
            "{\"dtype\":\"f32\",\"shape\":[4],\"count\":4,"
            "\"first\":[\"nan\",\"inf\",\"-inf\",2],\"truncated\":false,"
            "\"min\":\"-inf\",\"max\":\"inf\",\"mean\":\"nan\",\"nan\":1,"
            "\"checksum\":\"" +
                Fnv(v, sizeof v) + "\"}");
  // NaNs are left out of min/max/mean; all-NaN leaves them out entirely.
  double w[3] = {NAN, -4.0, 1.0};
  std::string s = Text(HLX_DTYPE_F64, {3}, w, 0);
  EXPECT_NE(s.find(" min=-4 max=1 mean=-1.5 nan=1 "), std::string::npos) << s;
  double allnan[2] = {NAN, -NAN};
  EXPECT_EQ(Text(HLX_DTYPE_F64, {2}, allnan, 2),
            "f64[2] first=[nan, nan] nan=2 checksum=" + Fnv(allnan, 16));
}

TEST(Summary, IntegersAreExact) {
  int64_t i64[3] = {std::numeric_limits<int64_t>::min(), 0,
                    std::numeric_limits<int64_t>::max()};
  std::string s = Text(HLX_DTYPE_S64, {3}, i64, 3);
  EXPECT_EQ(s.substr(0, s.find(" mean=")),
            "i64[3] first=[-9223372036854775808, 0, 9223372036854775807] "
            "min=-9223372036854775808 max=9223372036854775807");
  EXPECT_EQ(s.find("nan="), std::string::npos) << s;

  uint64_t u64[2] = {18446744073709551615ull, 1};
  s = Json(HLX_DTYPE_U64, {1, 2}, u64, 8);
  EXPECT_EQ(s.substr(0, s.find(",\"mean\"")),
            "{\"dtype\":\"ui64\",\"shape\":[1,2],\"count\":2,"
            "\"first\":[18446744073709551615,1],\"truncated\":false,"
            "\"min\":1,\"max\":18446744073709551615");

  int32_t i32[4] = {-3, 7, 2, 0};
  EXPECT_EQ(Text(HLX_DTYPE_S32, {2, 2}, i32, 2),
            "i32[2,2] first=[-3, 7, ...] min=-3 max=7 mean=1.5 checksum=" +
                Fnv(i32, sizeof i32));
  uint8_t u8[3] = {255, 0, 1};
  EXPECT_EQ(Text(HLX_DTYPE_U8, {3}, u8, 3),
            "ui8[3] first=[255, 0, 1] min=0 max=255 mean=85.333336 checksum=" +
                Fnv(u8, 3));
  // Sub-byte ints: sign-extended (or low-bit) bytes both read as i4 -1.
  uint8_t s4[3] = {0xFF, 0x0F, 0x07};
  EXPECT_EQ(Text(HLX_DTYPE_S4, {3}, s4, 3),
            "i4[3] first=[-1, -1, 7] min=-1 max=7 mean=1.6666666 checksum=" +
                Fnv(s4, 3));
  uint8_t u4[2] = {0x0F, 0x03};
  EXPECT_EQ(Text(HLX_DTYPE_U4, {2}, u4, 2),
            "ui4[2] first=[15, 3] min=3 max=15 mean=9 checksum=" + Fnv(u4, 2));
}

TEST(Summary, Pred) {
  uint8_t p[3] = {1, 0, 1};
  EXPECT_EQ(Text(HLX_DTYPE_PRED, {3}, p, 2),
            "i1[3] first=[true, false, ...] min=false max=true "
            "mean=0.6666667 checksum=" +
                Fnv(p, 3));
  EXPECT_EQ(Json(HLX_DTYPE_PRED, {3}, p, 3),
            "{\"dtype\":\"i1\",\"shape\":[3],\"count\":3,"
            "\"first\":[true,false,true],\"truncated\":false,\"min\":false,"
            "\"max\":true,\"mean\":0.6666667,\"checksum\":\"" +
                Fnv(p, 3) + "\"}");
}

TEST(Summary, Complex) {
  float c[4] = {1.0f, -2.0f, NAN, 0.0f};
  EXPECT_EQ(Text(HLX_DTYPE_C64, {2}, c, 2),
            "complex<f32>[2] first=[(1,-2), (nan,0)] mean=(1,-2) nan=1 "
            "checksum=" +
                Fnv(c, sizeof c));
  EXPECT_EQ(Json(HLX_DTYPE_C64, {2}, c, 2),
            "{\"dtype\":\"complex<f32>\",\"shape\":[2],\"count\":2,"
            "\"first\":[[1,-2],[\"nan\",0]],\"truncated\":false,"
            "\"mean\":[1,-2],\"nan\":1,\"checksum\":\"" +
                Fnv(c, sizeof c) + "\"}");
  double z[4] = {0.5, 0.25, 1.5, -0.25};
  EXPECT_EQ(Text(HLX_DTYPE_C128, {1, 2}, z, 1),
            "complex<f64>[1,2] first=[(0.5,0.25), ...] mean=(1,0) nan=0 "
            "checksum=" +
                Fnv(z, sizeof z));
}

TEST(Summary, ScalarsAndEmpty) {
  double x = 2.5;
  EXPECT_EQ(Text(HLX_DTYPE_F64, {}, &x, 8),
            "f64[] first=[2.5] min=2.5 max=2.5 mean=2.5 nan=0 checksum=" +
                Fnv(&x, 8));
  EXPECT_EQ(Json(HLX_DTYPE_F64, {}, &x, 8),
            "{\"dtype\":\"f64\",\"shape\":[],\"count\":1,\"first\":[2.5],"
            "\"truncated\":false,\"min\":2.5,\"max\":2.5,\"mean\":2.5,"
            "\"nan\":0,\"checksum\":\"" +
                Fnv(&x, 8) + "\"}");
  // Zero elements: no min/max/mean; FNV of nothing; data may be NULL.
  EXPECT_EQ(Text(HLX_DTYPE_F32, {0, 3}, nullptr, 8),
            "f32[0,3] first=[] nan=0 checksum=0xcbf29ce484222325");
  EXPECT_EQ(Json(HLX_DTYPE_S32, {2, 0}, nullptr, 8),
            "{\"dtype\":\"i32\",\"shape\":[2,0],\"count\":0,\"first\":[],"
            "\"truncated\":false,\"checksum\":\"0xcbf29ce484222325\"}");
}

TEST(Summary, Errors) {
  float v = 1;
  int64_t neg[1] = {-2};
  int64_t huge[2] = {INT64_MAX / 2, 4};
  char* out = reinterpret_cast<char*>(0x1);
  struct Case {
    hlx_dtype_t t;
    int32_t rank;
    const int64_t* dims;
    const void* data;
    const char* needle;
  } cases[] = {
      {HLX_DTYPE_INVALID, 0, nullptr, &v, "invalid dtype"},
      {HLX_DTYPE_F32, -1, nullptr, &v, "bad rank -1"},
      {HLX_DTYPE_F32, 1, nullptr, &v, "NULL dims"},
      {HLX_DTYPE_F32, 1, neg, &v, "dimension 0 is negative (-2)"},
      {HLX_DTYPE_F32, 2, huge, &v, "element count overflows"},
      {HLX_DTYPE_F32, 0, nullptr, nullptr, "data is NULL for 1 elements"},
  };
  for (const Case& c : cases) {
    for (int json = 0; json < 2; json++) {
      hlx_status_t s =
          json ? hlx_tensor_summary_json(c.t, c.rank, c.dims, c.data, 4, &out)
               : hlx_tensor_summary(c.t, c.rank, c.dims, c.data, 4, &out);
      EXPECT_EQ(hlx_status_code(s), HLX_STATUS_INVALID_ARGUMENT) << c.needle;
      std::string msg = hlx_status_message(s);
      EXPECT_NE(msg.find(c.needle), std::string::npos) << msg;
      EXPECT_NE(msg.find(json ? "tensor_summary_json: " : "tensor_summary: "),
                std::string::npos)
          << msg;
      EXPECT_EQ(out, nullptr);
      hlx_status_free(s);
    }
  }
  hlx_status_t s =
      hlx_tensor_summary(HLX_DTYPE_F32, 0, nullptr, &v, 4, nullptr);
  EXPECT_EQ(hlx_status_code(s), HLX_STATUS_INVALID_ARGUMENT);
  hlx_status_free(s);
}

}  // namespace
