// kernels/dispatch/thread_split.h: every item is in exactly one piece, and
// every piece starts on a 64-byte line of what it writes, for item sizes
// that do and do not divide 64 (neighbouring threads never share a line).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

extern "C" {
#include "kernels/dispatch/thread_split.h"
}

TEST(ThreadSplit, LineItemsMakeWholeLines) {
  for (int64_t bytes = 1; bytes <= 300; bytes++) {
    int64_t a = hlx_thread_split_line_items(bytes);
    EXPECT_EQ(a * bytes % 64, 0) << bytes << " bytes, align " << a;
    // the fewest such items
    for (int64_t k = 1; k < a; k++) EXPECT_NE(k * bytes % 64, 0) << bytes;
  }
  EXPECT_EQ(hlx_thread_split_line_items(4), 16);
  EXPECT_EQ(hlx_thread_split_line_items(12), 16);
  EXPECT_EQ(hlx_thread_split_line_items(128), 1);
  EXPECT_EQ(hlx_thread_split_line_items(0), 1);
}

TEST(ThreadSplit, PiecesCoverDisjointlyOnLines) {
  for (int64_t bytes : {1, 4, 12, 100, 256}) {
    for (int64_t n : {0, 1, 5, 63, 64, 65, 1000, 4099}) {
      for (int threads : {1, 2, 3, 8}) {
        int64_t align = hlx_thread_split_line_items(bytes);
        hlx_thread_split_t s = hlx_thread_split(n, threads, align);
        std::vector<int> seen(static_cast<size_t>(n), 0);
        for (int k = 0; k < s.pieces; k++) {
          int64_t lo, hi;
          if (!hlx_thread_split_piece(&s, static_cast<size_t>(k), &lo, &hi))
            continue;
          EXPECT_EQ(lo * bytes % 64, 0) << bytes << " " << n << " " << k;
          for (int64_t i = lo; i < hi; i++) seen[static_cast<size_t>(i)]++;
        }
        for (int64_t i = 0; i < n; i++)
          ASSERT_EQ(seen[static_cast<size_t>(i)], 1)
              << "item " << i << " of " << n << ", " << threads
              << " threads, " << bytes << " bytes";
      }
    }
  }
}
