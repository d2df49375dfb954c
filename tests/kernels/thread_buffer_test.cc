// Per-thread buffers (kernels/libs/thread_buffer.c): sizes, the fresh flag,
// contents kept between calls, one buffer per thread, and requests too
// large to round up are refused rather than served by a smaller buffer.
#include "kernels/libs/thread_buffer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <thread>

namespace {

hlx_thread_buffer_t g_tb = HLX_THREAD_BUFFER_INIT;

TEST(ThreadBuffer, GrowsKeepsContentsAndSaysWhenFresh) {
  bool fresh = false;
  auto* a = static_cast<unsigned char*>(hlx_thread_buffer(&g_tb, 100, &fresh));
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(fresh);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  for (int i = 0; i < 128; i++) EXPECT_EQ(a[i], 0) << i;  // rounded to 128
  std::memset(a, 7, 128);
  auto* b = static_cast<unsigned char*>(hlx_thread_buffer(&g_tb, 128, &fresh));
  EXPECT_EQ(b, a);
  EXPECT_FALSE(fresh);
  EXPECT_EQ(b[127], 7);
  auto* c = static_cast<unsigned char*>(hlx_thread_buffer(&g_tb, 4096, &fresh));
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(fresh);
  EXPECT_EQ(c[4095], 0);
}

TEST(ThreadBuffer, EachThreadHasItsOwn) {
  void* mine = hlx_thread_buffer(&g_tb, 256, nullptr);
  void* theirs = nullptr;
  std::thread t([&] {
    theirs = hlx_thread_buffer(&g_tb, 256, nullptr);
    std::memset(theirs, 1, 256);
  });
  t.join();
  ASSERT_NE(mine, nullptr);
  EXPECT_NE(theirs, nullptr);
  EXPECT_NE(theirs, mine);
}

TEST(ThreadBuffer, SizesThatOverflowTheRoundingAreRefused) {
  ASSERT_NE(hlx_thread_buffer(&g_tb, 64, nullptr), nullptr);
  bool fresh = true;
  EXPECT_EQ(hlx_thread_buffer(&g_tb, SIZE_MAX, &fresh), nullptr);
  EXPECT_FALSE(fresh);
  EXPECT_EQ(hlx_thread_buffer(&g_tb, SIZE_MAX - 62, nullptr), nullptr);
  // The thread's buffer still serves ordinary sizes afterwards.
  EXPECT_NE(hlx_thread_buffer(&g_tb, 64, nullptr), nullptr);
}

}  // namespace
