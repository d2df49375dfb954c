// Helpers for tests that build plans by hand through scheduler/plan.h and
// run them on small pools.
#ifndef HLX_TESTS_SCHEDULER_PLAN_TESTING_H_
#define HLX_TESTS_SCHEDULER_PLAN_TESTING_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "scheduler/plan.h"
#include "scheduler/pool.h"

namespace hlx_testing {

// v copied into p's arena: a param or result slot list.
inline int32_t* ArenaInts(hlx_plan_t* p, const std::vector<int32_t>& v) {
  int32_t* a = static_cast<int32_t*>(
      hlx_arena_alloc_array(&p->arena, v.size() + 1, sizeof(int32_t)));
  if (!v.empty()) std::memcpy(a, v.data(), v.size() * sizeof(int32_t));
  return a;
}

// Finalizes a complete plan with the default options, as the lowering
// finalizes its plans; a failure fails the test.
inline void Finalize(hlx_plan_t* p) {
  hlx_status_t st = hlx_plan_finalize(p, nullptr);
  ASSERT_EQ(st, nullptr) << hlx_status_message(st);
}

// A pool of `threads` workers that spin briefly before sleeping (tests
// share the machine); NULL, with a failed expectation, when it cannot be
// made.
inline hlx_pool_t* Pool(int threads) {
  hlx_pool_options_t o;
  hlx_pool_options_init(&o);
  o.num_threads = threads;
  o.spin_iterations = 100;
  hlx_pool_t* pool = nullptr;
  hlx_status_t st = hlx_pool_create(&o, &pool);
  EXPECT_EQ(st, nullptr) << hlx_status_message(st);
  hlx_status_free(st);
  return pool;
}

}  // namespace hlx_testing

#endif  // HLX_TESTS_SCHEDULER_PLAN_TESTING_H_
