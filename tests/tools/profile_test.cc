// hlx run --profile / --stats support: the trace holds one complete event
// per task of the last run (names escaped, times relative to the run's
// start); the stats group tasks by op kind, sorted by time, with shares.
#include "tools/profile.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace {

std::string Capture(hlx_profile_t* p, bool trace, size_t arena = 0,
                    size_t live = 0, size_t sum = 0) {
  char* buf = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  hlx_status_t st = trace ? hlx_profile_write_trace(p, f)
                          : hlx_profile_print_stats(p, f, arena, live, sum);
  EXPECT_EQ(st, nullptr);
  fclose(f);
  std::string s(buf, len);
  free(buf);
  return s;
}

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos;
       at = s.find(what, at + 1))
    n++;
  return n;
}

TEST(Profile, TraceHasOneEventPerTaskOfTheLastRun) {
  hlx_profile_t* p = hlx_profile_create();
  ASSERT_NE(p, nullptr);
  hlx_profile_begin_run(p);
  hlx_profile_on_task(p, 0, "old at 1:1", 1, 100, 200);
  hlx_profile_begin_run(p);
  hlx_profile_on_task(p, 0, "stablehlo.add at 3:5", 1, 5000, 7000);
  hlx_profile_on_task(p, 1, "a \"quoted\\name\"", 2, 6000, 9500);
  EXPECT_EQ(hlx_profile_num_events(p), 3u);
  std::string t = Capture(p, true);
  EXPECT_EQ(t.rfind("{\"displayTimeUnit\": \"ms\", \"traceEvents\": [", 0),
            0u);
  EXPECT_EQ(Count(t, "\"ph\": \"X\""), 2u);
  EXPECT_EQ(Count(t, "old at"), 0u);
  EXPECT_NE(t.find("{\"name\": \"stablehlo.add at 3:5\", \"cat\": \"task\", "
                   "\"ph\": \"X\", \"ts\": 0.000, \"dur\": 2.000, \"pid\": 1, "
                   "\"tid\": 1, \"args\": {\"task\": 0}}"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("\"name\": \"a \\\"quoted\\\\name\\\"\""), std::string::npos)
      << t;
  EXPECT_NE(t.find("\"ts\": 1.000, \"dur\": 3.500, \"pid\": 1, \"tid\": 2"),
            std::string::npos)
      << t;
  EXPECT_EQ(t.substr(t.size() - 4), "\n]}\n");
  hlx_profile_destroy(p);
}

TEST(Profile, StatsGroupByKindSortedByTime) {
  hlx_profile_t* p = hlx_profile_create();
  ASSERT_NE(p, nullptr);
  for (int run = 0; run < 2; run++) {
    hlx_profile_begin_run(p);
    hlx_profile_on_task(p, 0, "stablehlo.add at 1:1", 1, 0, 1000000);
    hlx_profile_on_task(p, 1, "stablehlo.dot_general at 2:1", 1, 0, 6000000);
    hlx_profile_on_task(p, 2, "stablehlo.add at 3:1", 1, 0, 3000000);
  }
  std::string s = Capture(p, false, 1048576, 524288, 4194304);
  size_t dot = s.find("stablehlo.dot_general"), add = s.find("stablehlo.add ");
  ASSERT_NE(dot, std::string::npos) << s;
  ASSERT_NE(add, std::string::npos) << s;
  EXPECT_LT(dot, add) << "sorted by time";
  // Per run: dot 6 ms (60%, 1 task), add 4 ms (40%, 2 tasks).
  EXPECT_NE(s.find("6.0000  60.00%        1"), std::string::npos) << s;
  EXPECT_NE(s.find("4.0000  40.00%        2"), std::string::npos) << s;
  EXPECT_NE(s.find("10.0000 100.00%        3"), std::string::npos) << s;
  EXPECT_NE(s.find("memory: peak arena 1048576 bytes (1.00 MiB), largest "
                   "live set 524288 bytes (0.50 MiB), sum of intermediates "
                   "4194304 bytes (4.00 MiB); arena/sum 25.0%"),
            std::string::npos)
      << s;
  hlx_profile_destroy(p);
}

}  // namespace
