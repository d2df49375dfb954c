// hlx_plan_on_destroy: cleanups of a plan and of the sub-plans it owns run
// once each when the plan is destroyed, the last registered first.
#include <gtest/gtest.h>

#include <vector>

#include "scheduler/plan.h"

namespace {

struct Log {
  std::vector<int> order;
};
struct Entry {
  Log* log;
  int id;
};

void Record(void* p) {
  Entry* e = static_cast<Entry*>(p);
  e->log->order.push_back(e->id);
}

TEST(PlanCleanup, RunOnceOnDestroyLastFirstChildrenToo) {
  Log log;
  Entry e1{&log, 1}, e2{&log, 2}, e3{&log, 3};
  hlx_plan_t* p = hlx_plan_create("outer");
  hlx_plan_t* child = hlx_plan_create("body");
  ASSERT_NE(p, nullptr);
  ASSERT_NE(child, nullptr);
  ASSERT_TRUE(hlx_plan_on_destroy(p, Record, &e1));
  ASSERT_TRUE(hlx_plan_on_destroy(p, Record, &e2));
  ASSERT_TRUE(hlx_plan_on_destroy(child, Record, &e3));
  ASSERT_EQ(hlx_plan_adopt(p, child), nullptr);
  EXPECT_TRUE(log.order.empty());
  hlx_plan_destroy(p);
  EXPECT_EQ(log.order, (std::vector<int>{2, 1, 3}));
}

}  // namespace
