// Host buffers through the public C API: zero-copy buffers with a deleter,
// the allocator hook (for created buffers and run results), and the errors
// for bad descriptions, pointers and allocators.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "api/hlx.h"
#include "tests/api/builder_testing.h"

namespace {

using hlx_test::Msg;

hlx_tensor_desc_t Desc(const char* type, std::vector<int64_t> dims) {
  return hlx_test::Desc(hlx_element_type_from_name(type), dims);
}

struct DeleterLog {
  int calls = 0;
  void* last = nullptr;
};
void CountingDeleter(void* user, void* data) {
  auto* log = static_cast<DeleterLog*>(user);
  log->calls++;
  log->last = data;
}

// A malloc/free-style allocator that records what it hands out.
struct AllocLog {
  int allocs = 0, frees = 0;
  size_t last_bytes = 0, last_alignment = 0;
  std::vector<void*> live;
  bool fail = false;
};
void* LogAlloc(void* user, size_t bytes, size_t alignment) {
  auto* log = static_cast<AllocLog*>(user);
  log->allocs++;
  log->last_bytes = bytes;
  log->last_alignment = alignment;
  if (log->fail) return nullptr;
  void* p = aligned_alloc(alignment, bytes);
  log->live.push_back(p);
  return p;
}
void LogFree(void* user, void* p) {
  auto* log = static_cast<AllocLog*>(user);
  log->frees++;
  for (size_t i = 0; i < log->live.size(); i++)
    if (log->live[i] == p) log->live.erase(log->live.begin() + (long)i);
  free(p);
}
hlx_allocator_t LoggingAllocator(AllocLog* log) {
  hlx_allocator_t a;
  hlx_allocator_init(&a);
  a.alloc = LogAlloc;
  a.free = LogFree;
  a.user = log;
  return a;
}

TEST(ZeroCopy, UsesTheCallersMemoryAndCallsTheDeleterOnce) {
  alignas(64) float data[6] = {1, 2, 3, 4, 5, 6};
  DeleterLog log;
  hlx_tensor_desc_t d = Desc("f32", {2, 3});
  hlx_buffer_t* b = nullptr;
  ASSERT_EQ(Msg(hlx_buffer_create_zero_copy(&d, data, CountingDeleter, &log,
                                            nullptr, &b)),
            "");
  EXPECT_EQ(hlx_buffer_data(b), static_cast<const void*>(data));
  EXPECT_EQ(hlx_buffer_bytes(b), sizeof(data));
  data[4] = 50;  // not copied: the buffer sees the change
  EXPECT_EQ(static_cast<const float*>(hlx_buffer_data(b))[4], 50.0f);
  int32_t m2m[2];
  hlx_buffer_minor_to_major(b, m2m);
  EXPECT_EQ(m2m[0], 1);
  EXPECT_EQ(m2m[1], 0);
  EXPECT_EQ(log.calls, 0);
  hlx_buffer_destroy(b);
  EXPECT_EQ(log.calls, 1);
  EXPECT_EQ(log.last, static_cast<void*>(data));
}

TEST(ZeroCopy, RunsAsAParameterAndIsNotWritten) {
  const char* text = R"(
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %0 = stablehlo.add %x, %x : tensor<4xf32>
      return %0 : tensor<4xf32>
    })";
  hlx_program_t* p = nullptr;
  hlx_executable_t* e = nullptr;
  ASSERT_EQ(Msg(hlx_program_parse(text, strlen(text), "t.mlir", 1, &p)), "");
  ASSERT_EQ(Msg(hlx_executable_create(p, nullptr, &e)), "");
  float* data = static_cast<float*>(malloc(4 * sizeof(float)));
  for (int i = 0; i < 4; i++) data[i] = (float)i + 0.5f;
  DeleterLog log;
  hlx_tensor_desc_t d = Desc("f32", {4});
  hlx_buffer_t* x = nullptr;
  ASSERT_EQ(Msg(hlx_buffer_create_zero_copy(&d, data, CountingDeleter, &log,
                                            nullptr, &x)),
            "");
  for (int run = 0; run < 2; run++) {
    hlx_buffer_t* out = nullptr;
    ASSERT_EQ(Msg(hlx_executable_run(e, &x, 1, &out, 1)), "");
    const float* r = static_cast<const float*>(hlx_buffer_data(out));
    for (int i = 0; i < 4; i++) EXPECT_EQ(r[i], 2 * ((float)i + 0.5f));
    hlx_buffer_destroy(out);
  }
  for (int i = 0; i < 4; i++) EXPECT_EQ(data[i], (float)i + 0.5f);
  EXPECT_EQ(log.calls, 0);  // runs do not release the caller's memory
  hlx_buffer_destroy(x);
  EXPECT_EQ(log.calls, 1);
  free(data);
  hlx_executable_destroy(e);
  hlx_program_destroy(p);
}

TEST(ZeroCopy, NullDeleterLeavesTheMemoryToTheCaller) {
  int32_t data[3] = {7, 8, 9};
  hlx_tensor_desc_t d = Desc("i32", {3});
  hlx_buffer_t* b = nullptr;
  ASSERT_EQ(Msg(hlx_buffer_create_zero_copy(&d, data, nullptr, nullptr,
                                            nullptr, &b)),
            "");
  hlx_buffer_destroy(b);
  EXPECT_EQ(data[2], 9);
}

TEST(ZeroCopy, AlignmentIsTheElementSize) {
  alignas(64) unsigned char raw[64] = {};
  DeleterLog log;
  hlx_buffer_t* b = nullptr;
  hlx_tensor_desc_t f32 = Desc("f32", {2});
  hlx_tensor_desc_t f64 = Desc("f64", {2});
  hlx_tensor_desc_t u8 = Desc("ui8", {2});
  std::string m = Msg(hlx_buffer_create_zero_copy(&f32, raw + 2,
                                                  CountingDeleter, &log,
                                                  nullptr, &b));
  EXPECT_NE(m.find("hlx_buffer_create_zero_copy"), std::string::npos) << m;
  EXPECT_NE(m.find("not aligned to the element size 4"), std::string::npos)
      << m;
  EXPECT_EQ(b, nullptr);
  m = Msg(hlx_buffer_create_zero_copy(&f64, raw + 4, CountingDeleter, &log,
                                      nullptr, &b));
  EXPECT_NE(m.find("element size 8"), std::string::npos) << m;
  EXPECT_EQ(log.calls, 0);  // failures leave the memory with the caller
  // Natural alignment is enough: 4 for f32, 8 for f64, 1 for ui8.
  ASSERT_EQ(Msg(hlx_buffer_create_zero_copy(&f32, raw + 4, CountingDeleter,
                                            &log, nullptr, &b)),
            "");
  hlx_buffer_destroy(b);
  ASSERT_EQ(Msg(hlx_buffer_create_zero_copy(&f64, raw + 8, CountingDeleter,
                                            &log, nullptr, &b)),
            "");
  hlx_buffer_destroy(b);
  ASSERT_EQ(Msg(hlx_buffer_create_zero_copy(&u8, raw + 3, CountingDeleter,
                                            &log, nullptr, &b)),
            "");
  hlx_buffer_destroy(b);
  EXPECT_EQ(log.calls, 3);
}

TEST(ZeroCopy, BadArgumentsAreErrors) {
  DeleterLog log;
  hlx_buffer_t* b = nullptr;
  float one = 1;
  hlx_tensor_desc_t d = Desc("f32", {3});
  std::string m = Msg(hlx_buffer_create_zero_copy(&d, nullptr, CountingDeleter,
                                                  &log, nullptr, &b));
  EXPECT_NE(m.find("data is NULL for a tensor of 12 bytes"), std::string::npos)
      << m;
  m = Msg(hlx_buffer_create_zero_copy(nullptr, &one, CountingDeleter, &log,
                                      nullptr, &b));
  EXPECT_NE(m.find("desc is NULL"), std::string::npos) << m;
  hlx_tensor_desc_t huge = Desc("f32", {int64_t(1) << 40, int64_t(1) << 40});
  m = Msg(hlx_buffer_create_zero_copy(&huge, &one, CountingDeleter, &log,
                                      nullptr, &b));
  EXPECT_NE(m.find("size overflows"), std::string::npos) << m;
  hlx_tensor_desc_t neg = Desc("f32", {-1});
  EXPECT_NE(Msg(hlx_buffer_create_zero_copy(&neg, &one, CountingDeleter, &log,
                                            nullptr, &b)),
            "");
  hlx_tensor_desc_t badtype = Desc("f32", {1});
  badtype.element_type = 9999;
  EXPECT_NE(Msg(hlx_buffer_create_zero_copy(&badtype, &one, CountingDeleter,
                                            &log, nullptr, &b)),
            "");
  EXPECT_EQ(b, nullptr);
  EXPECT_EQ(log.calls, 0);
  // An empty tensor may have no memory at all.
  hlx_tensor_desc_t empty = Desc("f32", {0, 5});
  ASSERT_EQ(Msg(hlx_buffer_create_zero_copy(&empty, nullptr, CountingDeleter,
                                            &log, nullptr, &b)),
            "");
  EXPECT_EQ(hlx_buffer_bytes(b), 0u);
  hlx_buffer_destroy(b);
  EXPECT_EQ(log.calls, 1);
}

TEST(Create, OverflowingAndNullDescriptionsAreErrors) {
  hlx_buffer_t* b = nullptr;
  hlx_tensor_desc_t huge = Desc("f64", {int64_t(1) << 62, 4});
  std::string m = Msg(hlx_buffer_create(&huge, nullptr, &b));
  EXPECT_NE(m.find("hlx_buffer_create: invalid element type, rank or dims"),
            std::string::npos)
      << m;
  EXPECT_NE(Msg(hlx_buffer_create(nullptr, nullptr, &b)), "");
  hlx_tensor_desc_t rank = Desc("f32", {});
  rank.rank = HLX_MAX_DIMS + 1;
  EXPECT_NE(Msg(hlx_buffer_create(&rank, nullptr, &b)), "");
  EXPECT_EQ(b, nullptr);
}

TEST(Allocator, CreatedBuffersUseTheHookAndCopy) {
  AllocLog log;
  hlx_allocator_t a = LoggingAllocator(&log);
  hlx_buffer_options_t o;
  hlx_buffer_options_init(&o);
  o.allocator = &a;
  float src[5] = {1, 2, 3, 4, 5};
  hlx_tensor_desc_t d = Desc("f32", {5});
  hlx_buffer_t* b = nullptr;
  ASSERT_EQ(Msg(hlx_buffer_create_with_options(&d, src, &o, &b)), "");
  EXPECT_EQ(log.allocs, 1);
  EXPECT_EQ(log.last_alignment, 64u);
  EXPECT_GE(log.last_bytes, sizeof(src));
  EXPECT_EQ(log.last_bytes % 64, 0u);
  ASSERT_EQ(log.live.size(), 1u);
  EXPECT_EQ(hlx_buffer_data(b), log.live[0]);
  src[0] = 100;  // copied: the buffer keeps the old value
  EXPECT_EQ(static_cast<const float*>(hlx_buffer_data(b))[0], 1.0f);
  EXPECT_EQ(static_cast<const float*>(hlx_buffer_data(b))[4], 5.0f);
  hlx_buffer_destroy(b);
  EXPECT_EQ(log.frees, 1);
  EXPECT_TRUE(log.live.empty());
}

TEST(Allocator, RunResultsUseTheCompileOptionsHook) {
  const char* text = R"(
    func.func @main(%x: tensor<3xi32>) -> (tensor<3xi32>, tensor<i32>) {
      %0 = stablehlo.multiply %x, %x : tensor<3xi32>
      %c = stablehlo.constant dense<7> : tensor<i32>
      return %0, %c : tensor<3xi32>, tensor<i32>
    })";
  AllocLog log;
  hlx_allocator_t a = LoggingAllocator(&log);
  hlx_compile_options_t co;
  hlx_compile_options_init(&co);
  co.allocator = &a;
  hlx_program_t* p = nullptr;
  hlx_executable_t* e = nullptr;
  ASSERT_EQ(Msg(hlx_program_parse(text, strlen(text), "t.mlir", 1, &p)), "");
  ASSERT_EQ(Msg(hlx_executable_create(p, &co, &e)), "");
  int32_t xs[3] = {2, -3, 4};
  hlx_tensor_desc_t d = Desc("i32", {3});
  hlx_buffer_t* x = nullptr;
  ASSERT_EQ(Msg(hlx_buffer_create(&d, xs, &x)), "");
  EXPECT_EQ(log.allocs, 0);  // hlx_buffer_create uses the default heap
  hlx_buffer_t* out[2] = {};
  ASSERT_EQ(Msg(hlx_executable_run(e, &x, 1, out, 2)), "");
  EXPECT_EQ(log.allocs, 2);
  EXPECT_EQ(log.live.size(), 2u);
  const int32_t* r = static_cast<const int32_t*>(hlx_buffer_data(out[0]));
  EXPECT_EQ(r[0], 4);
  EXPECT_EQ(r[1], 9);
  EXPECT_EQ(r[2], 16);
  EXPECT_EQ(*static_cast<const int32_t*>(hlx_buffer_data(out[1])), 7);
  hlx_buffer_destroy(out[0]);
  hlx_buffer_destroy(out[1]);
  EXPECT_EQ(log.frees, 2);
  EXPECT_TRUE(log.live.empty());
  // A failing allocator fails the run with RESOURCE_EXHAUSTED, no leaks.
  log.fail = true;
  hlx_status_t s = hlx_executable_run(e, &x, 1, out, 2);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(hlx_status_get_code(s), 4);
  EXPECT_NE(Msg(s).find("cannot allocate"), std::string::npos);
  EXPECT_EQ(out[0], nullptr);
  EXPECT_EQ(log.frees, 2);
  hlx_buffer_destroy(x);
  hlx_executable_destroy(e);
  hlx_program_destroy(p);
}

TEST(Allocator, IncompleteHooksAreErrors) {
  hlx_allocator_t a;
  hlx_allocator_init(&a);
  a.alloc = LogAlloc;  // no free
  hlx_buffer_options_t o;
  hlx_buffer_options_init(&o);
  o.allocator = &a;
  hlx_tensor_desc_t d = Desc("f32", {2});
  hlx_buffer_t* b = nullptr;
  std::string m = Msg(hlx_buffer_create_with_options(&d, nullptr, &o, &b));
  EXPECT_NE(m.find("the allocator needs both alloc and free"),
            std::string::npos)
      << m;
  EXPECT_EQ(b, nullptr);
}

TEST(Options, AnOlderSmallerStructGetsDefaults) {
  // A caller built against a version with only struct_size: every later
  // field (layout, allocator) takes its default even if memory follows.
  struct {
    hlx_buffer_options_t o;
  } s;
  memset(&s, 0xFF, sizeof(s));
  s.o.struct_size = sizeof(size_t);
  float v[2] = {3, 4};
  hlx_tensor_desc_t d = Desc("f32", {2});
  hlx_buffer_t* b = nullptr;
  ASSERT_EQ(Msg(hlx_buffer_create_with_options(&d, v, &s.o, &b)), "");
  EXPECT_EQ(static_cast<const float*>(hlx_buffer_data(b))[1], 4.0f);
  hlx_buffer_destroy(b);
}

}  // namespace
