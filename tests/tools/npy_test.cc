// Tests of tools/npy.{h,c}: round trips for every dtype, hand-made files in
// every supported header version, byte order and memory order, and one
// error test per rule for malformed files.
#include "tools/npy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "base/float_formats.h"
#include "tools/random_fill.h"

namespace {

std::string TmpPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir && *dir ? dir : "/tmp") + "/hlx_npy_test_" + name;
}

std::string ReadFileBytes(const std::string& path) {
  std::string s;
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return s;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  std::fclose(f);
  return s;
}

void WriteFileBytes(const std::string& path, const std::string& bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
  std::fclose(f);
}

// Builds a .npy file: magic, version, header length (2 bytes for major 1,
// else 4), the header text as given (no padding added), then the data.
std::string MakeNpy(int major, int minor, const std::string& header,
                    const std::string& data) {
  std::string s("\x93NUMPY", 6);
  s.push_back(static_cast<char>(major));
  s.push_back(static_cast<char>(minor));
  uint32_t n = static_cast<uint32_t>(header.size());
  s.push_back(static_cast<char>(n & 0xFF));
  s.push_back(static_cast<char>((n >> 8) & 0xFF));
  if (major != 1) {
    s.push_back(static_cast<char>((n >> 16) & 0xFF));
    s.push_back(static_cast<char>((n >> 24) & 0xFF));
  }
  return s + header + data;
}

std::string Header(const std::string& descr, bool fortran,
                   const std::string& shape) {
  return "{'descr': '" + descr +
         "', 'fortran_order': " + (fortran ? "True" : "False") +
         ", 'shape': " + shape + ", }\n";
}

template <typename T>
std::string Raw(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()),
                     v.size() * sizeof(T));
}

// Reads from memory; returns the status (message kept in *msg).
hlx_status_code_t ReadMem(const std::string& bytes, hlx_dtype_t expected,
                          hlx_npy_array_t* a, std::string* msg = nullptr) {
  hlx_status_t s =
      hlx_npy_read_memory(bytes.data(), bytes.size(), "mem.npy", expected, a);
  hlx_status_code_t c = hlx_status_code(s);
  if (msg) *msg = hlx_status_message(s);
  hlx_status_free(s);
  return c;
}

// Expects reading `bytes` to fail with `code` and a message containing
// `needle`; the output array must be left empty.
void ExpectReadError(const std::string& bytes, hlx_dtype_t expected,
                     hlx_status_code_t code, const std::string& needle) {
  hlx_npy_array_t a;
  std::memset(&a, 0x5a, sizeof a);
  std::string msg;
  EXPECT_EQ(ReadMem(bytes, expected, &a, &msg), code) << msg;
  EXPECT_NE(msg.find(needle), std::string::npos)
      << "message: " << msg << "\nwanted: " << needle;
  EXPECT_NE(msg.find("npy: mem.npy: "), std::string::npos) << msg;
  EXPECT_EQ(a.data, nullptr);
  EXPECT_EQ(a.rank, 0);
  hlx_npy_free(&a);
}

// ------------------------------------------------------------- writing

TEST(NpyWrite, ExactBytesLikeNumpy) {
  // np.save of np.array([[0,1,2],[3,4,5]], np.float32): numpy >= 1.24 pads
  // the dict with 21 - len('2') spaces, then to a multiple of 64 bytes.
  std::vector<float> v = {0, 1, 2, 3, 4, 5};
  int64_t dims[2] = {2, 3};
  void* bytes = nullptr;
  size_t len = 0;
  hlx_status_t s =
      hlx_npy_encode(HLX_DTYPE_F32, 2, dims, v.data(), &bytes, &len);
  ASSERT_EQ(s, nullptr) << hlx_status_message(s);
  std::string dict =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  std::string want("\x93NUMPY\x01\x00\x76\x00", 10);
  want += dict + std::string(118 - dict.size() - 1, ' ') + "\n" + Raw(v);
  ASSERT_EQ(len, 128u + 24u);
  EXPECT_EQ(std::string(static_cast<char*>(bytes), len), want);
  std::free(bytes);
}

TEST(NpyWrite, ScalarAndVectorHeaders) {
  double x = 2.5;
  void* bytes = nullptr;
  size_t len = 0;
  ASSERT_EQ(hlx_npy_encode(HLX_DTYPE_F64, 0, nullptr, &x, &bytes, &len),
            nullptr);
  std::string s(static_cast<char*>(bytes), len);
  std::free(bytes);
  ASSERT_EQ(len, 128u + 8u);
  EXPECT_EQ(s.substr(10, 55),
            "{'descr': '<f8', 'fortran_order': False, 'shape': (), }");
  EXPECT_EQ(s[127], '\n');
  EXPECT_EQ(s[8], 118);  // header length

  int64_t d1[1] = {3};
  uint16_t bf[3] = {0x3f80, 0xc000, 0};
  ASSERT_EQ(hlx_npy_encode(HLX_DTYPE_BF16, 1, d1, bf, &bytes, &len), nullptr);
  s.assign(static_cast<char*>(bytes), len);
  std::free(bytes);
  EXPECT_EQ(s.substr(10, 57),
            "{'descr': '<V2', 'fortran_order': False, 'shape': (3,), }");
  EXPECT_EQ(len, 128u + 6u);
  EXPECT_EQ(s.substr(128), Raw(std::vector<uint16_t>(bf, bf + 3)));
}

TEST(NpyWrite, DescrPerDtype) {
  EXPECT_STREQ(hlx_npy_descr(HLX_DTYPE_PRED), "|b1");
  EXPECT_STREQ(hlx_npy_descr(HLX_DTYPE_S4), "|i1");
  EXPECT_STREQ(hlx_npy_descr(HLX_DTYPE_U2), "|u1");
  EXPECT_STREQ(hlx_npy_descr(HLX_DTYPE_S64), "<i8");
  EXPECT_STREQ(hlx_npy_descr(HLX_DTYPE_U16), "<u2");
  EXPECT_STREQ(hlx_npy_descr(HLX_DTYPE_F16), "<f2");
  EXPECT_STREQ(hlx_npy_descr(HLX_DTYPE_BF16), "<V2");
  EXPECT_STREQ(hlx_npy_descr(HLX_DTYPE_F8E4M3FN), "|V1");
  EXPECT_STREQ(hlx_npy_descr(HLX_DTYPE_F4E2M1FN), "|V1");
  EXPECT_STREQ(hlx_npy_descr(HLX_DTYPE_C64), "<c8");
  EXPECT_STREQ(hlx_npy_descr(HLX_DTYPE_C128), "<c16");
  EXPECT_EQ(hlx_npy_descr(HLX_DTYPE_INVALID), nullptr);
}

TEST(NpyWrite, SubByteIntsAndPredAreNormalised) {
  // S4 given as low bits only (0x0F = -1) is written sign-extended; U4 high
  // bits are dropped; pred nonzero bytes become 1.
  uint8_t s4[3] = {0x0F, 0x07, 0xF8};
  uint8_t u4[2] = {0xF3, 0x0A};
  uint8_t pr[3] = {0, 7, 1};
  int64_t d3[1] = {3}, d2[1] = {2};
  void* b = nullptr;
  size_t len = 0;
  ASSERT_EQ(hlx_npy_encode(HLX_DTYPE_S4, 1, d3, s4, &b, &len), nullptr);
  std::string s(static_cast<char*>(b), len);
  std::free(b);
  EXPECT_NE(s.find("'descr': '|i1'"), std::string::npos);
  EXPECT_EQ(s.substr(len - 3), std::string("\xFF\x07\xF8", 3));
  ASSERT_EQ(hlx_npy_encode(HLX_DTYPE_U4, 1, d2, u4, &b, &len), nullptr);
  s.assign(static_cast<char*>(b), len);
  std::free(b);
  EXPECT_NE(s.find("'descr': '|u1'"), std::string::npos);
  EXPECT_EQ(s.substr(len - 2), std::string("\x03\x0A", 2));
  ASSERT_EQ(hlx_npy_encode(HLX_DTYPE_PRED, 1, d3, pr, &b, &len), nullptr);
  s.assign(static_cast<char*>(b), len);
  std::free(b);
  EXPECT_EQ(s.substr(len - 3), std::string("\x00\x01\x01", 3));
}

TEST(NpyWrite, FileMatchesEncode) {
  std::vector<int32_t> v = {7, -8, 9, 100000};
  int64_t dims[2] = {2, 2};
  std::string path = TmpPath("match.npy");
  hlx_status_t s =
      hlx_npy_write(path.c_str(), HLX_DTYPE_S32, 2, dims, v.data());
  ASSERT_EQ(s, nullptr) << hlx_status_message(s);
  void* b = nullptr;
  size_t len = 0;
  ASSERT_EQ(hlx_npy_encode(HLX_DTYPE_S32, 2, dims, v.data(), &b, &len),
            nullptr);
  EXPECT_EQ(ReadFileBytes(path), std::string(static_cast<char*>(b), len));
  std::free(b);
  std::remove(path.c_str());
}

TEST(NpyWrite, BadArguments) {
  int64_t neg[2] = {2, -1};
  int64_t huge[2] = {INT64_MAX / 2, 4};
  float x = 0;
  struct Case {
    hlx_dtype_t t;
    int32_t rank;
    const int64_t* dims;
    const void* data;
    const char* needle;
  } cases[] = {
      {HLX_DTYPE_INVALID, 0, nullptr, &x, "invalid dtype"},
      {HLX_DTYPE_F32, -1, nullptr, &x, "rank -1 is outside"},
      {HLX_DTYPE_F32, 65, neg, &x, "rank 65 is outside"},
      {HLX_DTYPE_F32, 2, nullptr, &x, "dims is NULL"},
      {HLX_DTYPE_F32, 2, neg, &x, "dimension 1 is negative"},
      {HLX_DTYPE_F32, 2, huge, &x, "overflows"},
      {HLX_DTYPE_F32, 0, nullptr, nullptr, "data is NULL"},
  };
  std::string path = TmpPath("bad_args.npy");
  for (const Case& c : cases) {
    hlx_status_t s = hlx_npy_write(path.c_str(), c.t, c.rank, c.dims, c.data);
    EXPECT_EQ(hlx_status_code(s), HLX_STATUS_INVALID_ARGUMENT) << c.needle;
    EXPECT_NE(std::string(hlx_status_message(s)).find(c.needle),
              std::string::npos)
        << hlx_status_message(s);
    hlx_status_free(s);
  }
  // Zero elements with NULL data is fine.
  int64_t zero[1] = {0};
  hlx_status_t s = hlx_npy_write(path.c_str(), HLX_DTYPE_F32, 1, zero, nullptr);
  EXPECT_EQ(s, nullptr) << hlx_status_message(s);
  hlx_npy_array_t a;
  s = hlx_npy_read(path.c_str(), HLX_DTYPE_INVALID, &a);
  ASSERT_EQ(s, nullptr) << hlx_status_message(s);
  EXPECT_EQ(a.rank, 1);
  EXPECT_EQ(a.dims[0], 0);
  EXPECT_EQ(a.bytes, 0u);
  EXPECT_NE(a.data, nullptr);
  hlx_npy_free(&a);
  std::remove(path.c_str());
}

TEST(NpyWrite, UnwritablePath) {
  float x = 1;
  hlx_status_t s = hlx_npy_write("/nonexistent_dir_hlx/x.npy", HLX_DTYPE_F32, 0,
                                 nullptr, &x);
  EXPECT_EQ(hlx_status_code(s), HLX_STATUS_NOT_FOUND);
  EXPECT_NE(std::string(hlx_status_message(s)).find("cannot open for writing"),
            std::string::npos)
      << hlx_status_message(s);
  hlx_status_free(s);
}

// ---------------------------------------------------------- round trips

TEST(NpyRoundTrip, EveryDtypeAndShape) {
  const std::vector<std::vector<int64_t>> shapes = {
      {}, {0}, {5}, {2, 0, 3}, {3, 4}, {2, 3, 1, 2, 2}};
  std::string path = TmpPath("roundtrip.npy");
  for (int ti = 1; ti < HLX_DTYPE_COUNT; ti++) {
    hlx_dtype_t t = static_cast<hlx_dtype_t>(ti);
    for (const auto& shape : shapes) {
      SCOPED_TRACE(std::string(hlx_dtype_name(t)) + " rank " +
                   std::to_string(shape.size()));
      size_t n = 1;
      for (int64_t d : shape) n *= static_cast<size_t>(d);
      std::vector<uint8_t> data(n * hlx_dtype_size(t) + 1);
      hlx_random_fill(t, data.data(), n, 1234 + ti);
      hlx_status_t s =
          hlx_npy_write(path.c_str(), t, static_cast<int32_t>(shape.size()),
                        shape.data(), data.data());
      ASSERT_EQ(s, nullptr) << hlx_status_message(s);

      hlx_npy_array_t a;
      s = hlx_npy_read(path.c_str(), t, &a);
      ASSERT_EQ(s, nullptr) << hlx_status_message(s);
      EXPECT_EQ(a.dtype, t);
      ASSERT_EQ(a.rank, static_cast<int32_t>(shape.size()));
      for (size_t k = 0; k < shape.size(); k++) EXPECT_EQ(a.dims[k], shape[k]);
      for (size_t k = shape.size(); k < HLX_NPY_MAX_RANK; k++)
        EXPECT_EQ(a.dims[k], 0);
      ASSERT_EQ(a.bytes, n * hlx_dtype_size(t));
      EXPECT_EQ(std::memcmp(a.data, data.data(), a.bytes), 0);
      hlx_npy_free(&a);
      EXPECT_EQ(a.data, nullptr);

      // Without an expected type: NumPy-nameable types come back as
      // themselves, sub-byte ints widen, raw void types are refused.
      s = hlx_npy_read(path.c_str(), HLX_DTYPE_INVALID, &a);
      if (t == HLX_DTYPE_BF16 || hlx_dtype_is_small_float(t)) {
        EXPECT_EQ(hlx_status_code(s), HLX_STATUS_INVALID_ARGUMENT);
        EXPECT_NE(std::string(hlx_status_message(s)).find("raw bytes"),
                  std::string::npos)
            << hlx_status_message(s);
        hlx_status_free(s);
      } else {
        ASSERT_EQ(s, nullptr) << hlx_status_message(s);
        hlx_dtype_t want = t == HLX_DTYPE_S2 || t == HLX_DTYPE_S4 ? HLX_DTYPE_S8
                           : t == HLX_DTYPE_U2 || t == HLX_DTYPE_U4
                               ? HLX_DTYPE_U8
                               : t;
        EXPECT_EQ(a.dtype, want);
        ASSERT_EQ(a.bytes, n * hlx_dtype_size(t));
        EXPECT_EQ(std::memcmp(a.data, data.data(), a.bytes), 0);
        hlx_npy_free(&a);
      }
    }
  }
  std::remove(path.c_str());
}

TEST(NpyRoundTrip, SpecialFloatValues) {
  std::vector<double> v = {
      0.0, -0.0, INFINITY, -INFINITY, NAN, 1e-310, 1.7976931348623157e308};
  int64_t d[1] = {static_cast<int64_t>(v.size())};
  void* b = nullptr;
  size_t len = 0;
  ASSERT_EQ(hlx_npy_encode(HLX_DTYPE_F64, 1, d, v.data(), &b, &len), nullptr);
  hlx_npy_array_t a;
  ASSERT_EQ(ReadMem(std::string(static_cast<char*>(b), len), HLX_DTYPE_F64, &a),
            HLX_STATUS_OK);
  std::free(b);
  EXPECT_EQ(std::memcmp(a.data, v.data(), a.bytes), 0);
  hlx_npy_free(&a);
}

// ------------------------------------------------- hand-made files: read

TEST(NpyRead, Version1LittleEndianInt32) {
  std::string f = MakeNpy(1, 0, Header("<i4", false, "(3,)"),
                          Raw(std::vector<int32_t>{1, -2, 300000}));
  hlx_npy_array_t a;
  ASSERT_EQ(ReadMem(f, HLX_DTYPE_INVALID, &a), HLX_STATUS_OK);
  EXPECT_EQ(a.dtype, HLX_DTYPE_S32);
  ASSERT_EQ(a.rank, 1);
  EXPECT_EQ(a.dims[0], 3);
  const int32_t* p = static_cast<const int32_t*>(a.data);
  EXPECT_EQ(p[0], 1);
  EXPECT_EQ(p[1], -2);
  EXPECT_EQ(p[2], 300000);
  hlx_npy_free(&a);
}

TEST(NpyRead, Version2And3Headers) {
  for (int major : {2, 3}) {
    std::string f = MakeNpy(major, 0, Header("<u2", false, "(2, 1)"),
                            Raw(std::vector<uint16_t>{65535, 7}));
    hlx_npy_array_t a;
    std::string msg;
    ASSERT_EQ(ReadMem(f, HLX_DTYPE_U16, &a, &msg), HLX_STATUS_OK) << msg;
    EXPECT_EQ(a.dtype, HLX_DTYPE_U16);
    ASSERT_EQ(a.rank, 2);
    EXPECT_EQ(a.dims[0], 2);
    EXPECT_EQ(a.dims[1], 1);
    EXPECT_EQ(static_cast<const uint16_t*>(a.data)[0], 65535);
    EXPECT_EQ(static_cast<const uint16_t*>(a.data)[1], 7);
    hlx_npy_free(&a);
  }
}

TEST(NpyRead, LenientHeaderSpelling) {
  // Double quotes, other key order, no trailing comma, Python 2 longs, a
  // one-element tuple without its comma and an old 16-byte alignment.
  std::string h =
      "{\"shape\": (2L, 2L), \"fortran_order\": False, \"descr\": \"<f8\"}"
      "     \n";
  std::string f = MakeNpy(1, 0, h, Raw(std::vector<double>{1.5, -2.25, 3, 4}));
  hlx_npy_array_t a;
  std::string msg;
  ASSERT_EQ(ReadMem(f, HLX_DTYPE_F64, &a, &msg), HLX_STATUS_OK) << msg;
  EXPECT_EQ(a.rank, 2);
  EXPECT_EQ(static_cast<const double*>(a.data)[1], -2.25);
  hlx_npy_free(&a);

  f = MakeNpy(1, 0, "{'descr':'<i2','fortran_order':False,'shape':(2)}",
              Raw(std::vector<int16_t>{-5, 6}));
  ASSERT_EQ(ReadMem(f, HLX_DTYPE_INVALID, &a, &msg), HLX_STATUS_OK) << msg;
  EXPECT_EQ(a.dtype, HLX_DTYPE_S16);
  EXPECT_EQ(a.rank, 1);
  EXPECT_EQ(static_cast<const int16_t*>(a.data)[0], -5);
  hlx_npy_free(&a);
}

TEST(NpyRead, BigEndian) {
  // >f4 [1.5, -2.0], >i8 [258, -1], >c8 [(1, -2)], >u2 [0x0102]
  std::string f4("\x3f\xc0\x00\x00\xc0\x00\x00\x00", 8);
  hlx_npy_array_t a;
  ASSERT_EQ(ReadMem(MakeNpy(1, 0, Header(">f4", false, "(2,)"), f4),
                    HLX_DTYPE_F32, &a),
            HLX_STATUS_OK);
  EXPECT_EQ(static_cast<const float*>(a.data)[0], 1.5f);
  EXPECT_EQ(static_cast<const float*>(a.data)[1], -2.0f);
  hlx_npy_free(&a);

  std::string i8("\0\0\0\0\0\0\x01\x02\xff\xff\xff\xff\xff\xff\xff\xff", 16);
  ASSERT_EQ(ReadMem(MakeNpy(1, 0, Header(">i8", false, "(2,)"), i8),
                    HLX_DTYPE_INVALID, &a),
            HLX_STATUS_OK);
  EXPECT_EQ(a.dtype, HLX_DTYPE_S64);
  EXPECT_EQ(static_cast<const int64_t*>(a.data)[0], 258);
  EXPECT_EQ(static_cast<const int64_t*>(a.data)[1], -1);
  hlx_npy_free(&a);

  std::string c8("\x3f\x80\x00\x00\xc0\x00\x00\x00", 8);
  ASSERT_EQ(
      ReadMem(MakeNpy(1, 0, Header(">c8", false, "()"), c8), HLX_DTYPE_C64, &a),
      HLX_STATUS_OK);
  EXPECT_EQ(a.rank, 0);
  EXPECT_EQ(static_cast<const float*>(a.data)[0], 1.0f);
  EXPECT_EQ(static_cast<const float*>(a.data)[1], -2.0f);
  hlx_npy_free(&a);

  ASSERT_EQ(ReadMem(MakeNpy(1, 0, Header(">u2", false, "(1,)"),
                            std::string("\x01\x02", 2)),
                    HLX_DTYPE_U16, &a),
            HLX_STATUS_OK);
  EXPECT_EQ(static_cast<const uint16_t*>(a.data)[0], 0x0102);
  hlx_npy_free(&a);

  // >V2 read as bf16: bytes 3f 80 are 1.0.
  ASSERT_EQ(ReadMem(MakeNpy(1, 0, Header(">V2", false, "(1,)"),
                            std::string("\x3f\x80", 2)),
                    HLX_DTYPE_BF16, &a),
            HLX_STATUS_OK);
  EXPECT_EQ(static_cast<const uint16_t*>(a.data)[0], 0x3f80);
  hlx_npy_free(&a);
}

TEST(NpyRead, FortranOrderIsTransposed) {
  // Row-major [[0,1,2],[3,4,5]] stored column-major: 0 3 1 4 2 5.
  std::string f = MakeNpy(1, 0, Header("<i4", true, "(2, 3)"),
                          Raw(std::vector<int32_t>{0, 3, 1, 4, 2, 5}));
  hlx_npy_array_t a;
  ASSERT_EQ(ReadMem(f, HLX_DTYPE_S32, &a), HLX_STATUS_OK);
  const int32_t* p = static_cast<const int32_t*>(a.data);
  for (int i = 0; i < 6; i++) EXPECT_EQ(p[i], i);
  hlx_npy_free(&a);

  // Rank 3 (2,3,4): element (i,j,k) = 100i + 10j + k, at Fortran offset
  // i + 2j + 6k; big-endian at the same time.
  std::vector<uint8_t> raw(24 * 2);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 4; k++) {
        int v = 100 * i + 10 * j + k;
        int off = i + 2 * j + 6 * k;
        raw[2 * off] = static_cast<uint8_t>(v >> 8);
        raw[2 * off + 1] = static_cast<uint8_t>(v & 0xFF);
      }
  f = MakeNpy(1, 0, Header(">i2", true, "(2, 3, 4)"), Raw(raw));
  ASSERT_EQ(ReadMem(f, HLX_DTYPE_S16, &a), HLX_STATUS_OK);
  const int16_t* q = static_cast<const int16_t*>(a.data);
  int idx = 0;
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 4; k++)
        EXPECT_EQ(q[idx++], 100 * i + 10 * j + k) << i << j << k;
  hlx_npy_free(&a);

  // Fortran order with a zero-sized dim and with rank 1 are no-ops.
  f = MakeNpy(1, 0, Header("<f4", true, "(3, 0)"), "");
  ASSERT_EQ(ReadMem(f, HLX_DTYPE_F32, &a), HLX_STATUS_OK);
  EXPECT_EQ(a.bytes, 0u);
  EXPECT_EQ(a.dims[0], 3);
  EXPECT_EQ(a.dims[1], 0);
  hlx_npy_free(&a);
}

TEST(NpyRead, VoidDescrsNeedAnExpectedType) {
  // '<V2' (ml_dtypes bfloat16): [1.0, -2.0].
  std::string f = MakeNpy(1, 0, Header("<V2", false, "(2,)"),
                          Raw(std::vector<uint16_t>{0x3f80, 0xc000}));
  hlx_npy_array_t a;
  ASSERT_EQ(ReadMem(f, HLX_DTYPE_BF16, &a), HLX_STATUS_OK);
  EXPECT_EQ(a.dtype, HLX_DTYPE_BF16);
  EXPECT_EQ(hlx_bf16_to_f32(static_cast<const uint16_t*>(a.data)[0]), 1.0f);
  EXPECT_EQ(hlx_bf16_to_f32(static_cast<const uint16_t*>(a.data)[1]), -2.0f);
  hlx_npy_free(&a);
  ExpectReadError(f, HLX_DTYPE_INVALID, HLX_STATUS_INVALID_ARGUMENT,
                  "descr '<V2' is raw bytes");
  ExpectReadError(f, HLX_DTYPE_F32, HLX_STATUS_INVALID_ARGUMENT,
                  "'<V2' has 2-byte elements, expected f32 has 4");

  // '|V1' as an f8 type: bytes kept as they are.
  f = MakeNpy(1, 0, Header("|V1", false, "(3,)"), std::string("\x38\xb8\x7f"));
  ASSERT_EQ(ReadMem(f, HLX_DTYPE_F8E4M3FN, &a), HLX_STATUS_OK);
  EXPECT_EQ(a.dtype, HLX_DTYPE_F8E4M3FN);
  const uint8_t* p = static_cast<const uint8_t*>(a.data);
  EXPECT_EQ(hlx_small_float_to_f64(HLX_DTYPE_F8E4M3FN, p[0]), 1.0);
  EXPECT_EQ(hlx_small_float_to_f64(HLX_DTYPE_F8E4M3FN, p[1]), -1.0);
  EXPECT_TRUE(std::isnan(hlx_small_float_to_f64(HLX_DTYPE_F8E4M3FN, p[2])));
  hlx_npy_free(&a);

  // '|V1' as int4 (ml_dtypes): low 4 bits, sign-extended.
  f = MakeNpy(1, 0, Header("|V1", false, "(3,)"), std::string("\x0f\x07\xf8"));
  ASSERT_EQ(ReadMem(f, HLX_DTYPE_S4, &a), HLX_STATUS_OK);
  p = static_cast<const uint8_t*>(a.data);
  EXPECT_EQ(static_cast<int8_t>(p[0]), -1);
  EXPECT_EQ(static_cast<int8_t>(p[1]), 7);
  EXPECT_EQ(static_cast<int8_t>(p[2]), -8);
  hlx_npy_free(&a);
  ASSERT_EQ(ReadMem(f, HLX_DTYPE_U4, &a), HLX_STATUS_OK);
  p = static_cast<const uint8_t*>(a.data);
  EXPECT_EQ(p[0], 15);
  EXPECT_EQ(p[1], 7);
  EXPECT_EQ(p[2], 8);
  hlx_npy_free(&a);
}

TEST(NpyRead, SubByteIntsFromInt8Files) {
  std::string ok = MakeNpy(1, 0, Header("|i1", false, "(4,)"),
                           std::string("\xf8\xff\x00\x07", 4));
  hlx_npy_array_t a;
  ASSERT_EQ(ReadMem(ok, HLX_DTYPE_S4, &a), HLX_STATUS_OK);
  EXPECT_EQ(a.dtype, HLX_DTYPE_S4);
  EXPECT_EQ(static_cast<const int8_t*>(a.data)[0], -8);
  EXPECT_EQ(static_cast<const int8_t*>(a.data)[3], 7);
  hlx_npy_free(&a);
  ExpectReadError(ok, HLX_DTYPE_S2, HLX_STATUS_INVALID_ARGUMENT,
                  "element 0 is -8, out of range for i2");
  ExpectReadError(
      MakeNpy(1, 0, Header("|u1", false, "(2,)"), std::string("\x03\x10", 2)),
      HLX_DTYPE_U4, HLX_STATUS_INVALID_ARGUMENT,
      "element 1 is 16, out of range for ui4");
}

TEST(NpyRead, PredBytesAreNormalised) {
  std::string f = MakeNpy(1, 0, Header("|b1", false, "(3,)"),
                          std::string("\x00\x01\x02", 3));
  hlx_npy_array_t a;
  ASSERT_EQ(ReadMem(f, HLX_DTYPE_PRED, &a), HLX_STATUS_OK);
  EXPECT_EQ(a.dtype, HLX_DTYPE_PRED);
  const uint8_t* p = static_cast<const uint8_t*>(a.data);
  EXPECT_EQ(p[0], 0);
  EXPECT_EQ(p[1], 1);
  EXPECT_EQ(p[2], 1);
  hlx_npy_free(&a);
}

TEST(NpyRead, MissingFile) {
  hlx_npy_array_t a;
  hlx_status_t s =
      hlx_npy_read("/nonexistent_dir_hlx/in.npy", HLX_DTYPE_F32, &a);
  EXPECT_EQ(hlx_status_code(s), HLX_STATUS_NOT_FOUND);
  EXPECT_NE(std::string(hlx_status_message(s))
                .find("npy: /nonexistent_dir_hlx/in.npy: cannot open"),
            std::string::npos)
      << hlx_status_message(s);
  hlx_status_free(s);
  EXPECT_EQ(a.data, nullptr);
}

// ------------------------------------------------------ malformed files

TEST(NpyMalformed, Preamble) {
  ExpectReadError("", HLX_DTYPE_INVALID, HLX_STATUS_DATA_LOSS,
                  "truncated inside the preamble");
  ExpectReadError(std::string("\x93NUM", 4), HLX_DTYPE_INVALID,
                  HLX_STATUS_DATA_LOSS, "truncated inside the preamble");
  ExpectReadError("PK\x03\x04 this is a zip", HLX_DTYPE_INVALID,
                  HLX_STATUS_INVALID_ARGUMENT, "not a .npy file (bad magic)");
  ExpectReadError(std::string("\x93NUMPX\x01\x00", 8), HLX_DTYPE_INVALID,
                  HLX_STATUS_INVALID_ARGUMENT, "bad magic");
  ExpectReadError(std::string("\x93NUMPY\x01\x00\x10", 9), HLX_DTYPE_INVALID,
                  HLX_STATUS_DATA_LOSS, "header length missing");
  ExpectReadError(std::string("\x93NUMPY\x02\x00\x10\x00\x00", 11),
                  HLX_DTYPE_INVALID, HLX_STATUS_DATA_LOSS,
                  "header length missing");
  ExpectReadError(MakeNpy(4, 0, Header("<f4", false, "()"), "abcd"),
                  HLX_DTYPE_INVALID, HLX_STATUS_INVALID_ARGUMENT,
                  "unsupported format version 4.0");
  ExpectReadError(MakeNpy(1, 1, Header("<f4", false, "()"), "abcd"),
                  HLX_DTYPE_INVALID, HLX_STATUS_INVALID_ARGUMENT,
                  "unsupported format version 1.1");
}

TEST(NpyMalformed, HeaderLengthLies) {
  std::string good = MakeNpy(1, 0, Header("<f4", false, "(1,)"), "abcd");
  // Header length claims more bytes than the file holds.
  std::string bad = good;
  bad[8] = '\xff';
  bad[9] = '\x7f';
  ExpectReadError(bad, HLX_DTYPE_INVALID, HLX_STATUS_DATA_LOSS,
                  "header length 32767 exceeds the");
  // File cut inside the header.
  ExpectReadError(good.substr(0, 30), HLX_DTYPE_INVALID, HLX_STATUS_DATA_LOSS,
                  "truncated header");
  // Header length too short: the dict is cut.
  bad = good;
  bad[8] = 20;
  ExpectReadError(bad, HLX_DTYPE_INVALID, HLX_STATUS_INVALID_ARGUMENT,
                  "bad header");
  // Header length too long: swallows the data, then the data is short.
  bad = good;
  bad[8] = static_cast<char>(good[8] + 4);
  ExpectReadError(bad, HLX_DTYPE_INVALID, HLX_STATUS_INVALID_ARGUMENT,
                  "bad header: unexpected text after the closing '}'");
  // v2 length field with a huge value.
  std::string v2 = MakeNpy(2, 0, Header("<f4", false, "(1,)"), "abcd");
  v2[11] = '\x40';
  ExpectReadError(v2, HLX_DTYPE_INVALID, HLX_STATUS_DATA_LOSS, "exceeds the");
}

TEST(NpyMalformed, HeaderSyntax) {
  struct Case {
    std::string header;
    std::string needle;
  } cases[] = {
      {"[]\n", "expected '{' at the start"},
      {"{'descr': '<f4', 'fortran_order': False}\n", "missing key 'shape'"},
      {"{'descr': '<f4', 'shape': ()}\n", "missing key 'fortran_order'"},
      {"{'fortran_order': False, 'shape': ()}\n", "missing key 'descr'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': 1}\n",
       "unexpected key 'x'"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, "
       "'shape': ()}\n",
       "duplicate key 'descr'"},
      {"{'descr': '<f4', 'fortran_order': 0, 'shape': ()}\n",
       "'fortran_order' is not True or False"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [1]}\n",
       "'shape' is not a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}\n",
       "negative dimension"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1.5,)}\n",
       "expected ',' or ')' in 'shape'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': ('a',)}\n",
       "'shape' holds something other than integers"},
      {"{'descr': '<f4', 'fortran_order': False, "
       "'shape': (99999999999999999999,)}\n",
       "dimension 0 in 'shape' is too large"},
      {"{'descr': '<f4' 'fortran_order': False, 'shape': ()}\n",
       "expected ',' or '}' after the value of 'descr'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': ()} x\n",
       "unexpected text after the closing '}'"},
      {"{descr: '<f4'}\n", "expected a quoted key"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': ()\n",
       "expected ',' or '}' after the value of 'shape'"},
      {"{'descr': '<f4\n", "'descr' is not a short string"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.header);
    ExpectReadError(MakeNpy(1, 0, c.header, "abcd"), HLX_DTYPE_INVALID,
                    HLX_STATUS_INVALID_ARGUMENT, "bad header: " + c.needle);
  }
}

TEST(NpyMalformed, Descr) {
  for (const char* d : {"<U10", "|O", "<f16", "<M8[ns]", "<i3", "|S5", "<f", "",
                        "<V0", "<c4"}) {
    SCOPED_TRACE(d);
    ExpectReadError(MakeNpy(1, 0, Header(d, false, "()"), "abcd"),
                    HLX_DTYPE_INVALID, HLX_STATUS_INVALID_ARGUMENT,
                    std::string("unsupported descr '") + d + "'");
  }
  ExpectReadError(
      MakeNpy(1, 0,
              "{'descr': [('a', '<f4'), ('b', '<i4')], 'fortran_order': "
              "False, 'shape': (1,), }\n",
              "abcdefgh"),
      HLX_DTYPE_INVALID, HLX_STATUS_INVALID_ARGUMENT,
      "structured arrays (descr is a list) are not supported");
  ExpectReadError(MakeNpy(1, 0, Header("<f8", false, "(1,)"), "abcdefgh"),
                  HLX_DTYPE_F32, HLX_STATUS_INVALID_ARGUMENT,
                  "file holds f64 (descr '<f8'), expected f32");
  ExpectReadError(MakeNpy(1, 0, Header("|u1", false, "(1,)"), "a"),
                  HLX_DTYPE_PRED, HLX_STATUS_INVALID_ARGUMENT,
                  "file holds ui8 (descr '|u1'), expected i1");
}

TEST(NpyMalformed, ShapesAndSizes) {
  // Rank above the limit.
  std::string shape17 = "(";
  for (int i = 0; i < 17; i++) shape17 += "1, ";
  shape17 += ")";
  ExpectReadError(MakeNpy(1, 0, Header("<f4", false, shape17), "abcd"),
                  HLX_DTYPE_INVALID, HLX_STATUS_INVALID_ARGUMENT,
                  "rank exceeds the maximum of 16");
  // Element count overflows.
  ExpectReadError(MakeNpy(1, 0,
                          Header("<f4", false,
                                 "(4611686018427387904, 4611686018427387904)"),
                          "abcd"),
                  HLX_DTYPE_INVALID, HLX_STATUS_INVALID_ARGUMENT,
                  "has too many elements (overflow)");
  // Byte count overflows (count fits, count * 16 does not).
  ExpectReadError(
      MakeNpy(1, 0, Header("<c16", false, "(1152921504606846976,)"), "abcd"),
      HLX_DTYPE_INVALID, HLX_STATUS_INVALID_ARGUMENT,
      "needs more bytes than can be addressed (overflow)");
  // Huge but representable: must fail on size, not allocate.
  ExpectReadError(
      MakeNpy(1, 0, Header("<f8", false, "(1099511627776,)"), "abcdefgh"),
      HLX_DTYPE_INVALID, HLX_STATUS_DATA_LOSS,
      "data is truncated: shape (1099511627776,) of '<f8' needs "
      "8796093022208 bytes, the file has 8 after the header");
  // Data one byte short / one byte long.
  ExpectReadError(
      MakeNpy(1, 0, Header("<i4", false, "(2, 2)"), std::string(15, 'x')),
      HLX_DTYPE_INVALID, HLX_STATUS_DATA_LOSS,
      "needs 16 bytes, the file has 15");
  ExpectReadError(
      MakeNpy(1, 0, Header("<i4", false, "(2, 2)"), std::string(17, 'x')),
      HLX_DTYPE_INVALID, HLX_STATUS_DATA_LOSS,
      "1 unexpected bytes after the data");
}

TEST(NpyMalformed, ErrorsFromFilesToo) {
  std::string path = TmpPath("malformed.npy");
  WriteFileBytes(path, MakeNpy(1, 0, Header("<i4", false, "(3,)"), "abc"));
  hlx_npy_array_t a;
  hlx_status_t s = hlx_npy_read(path.c_str(), HLX_DTYPE_INVALID, &a);
  EXPECT_EQ(hlx_status_code(s), HLX_STATUS_DATA_LOSS);
  EXPECT_NE(std::string(hlx_status_message(s))
                .find("npy: " + path + ": data is truncated"),
            std::string::npos)
      << hlx_status_message(s);
  hlx_status_free(s);
  EXPECT_EQ(a.data, nullptr);
  std::remove(path.c_str());
}

}  // namespace
