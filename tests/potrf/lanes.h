#pragma once
// The look-ahead's safety check for plan_test: whether two steps that potrf_schedule's lanes
// let run at once can touch the same elements.
#include <array>
#include <cstddef>
#include <vector>

#include "impl/potrf/potrf_plan.h"

namespace potrf_lanes {

using cudrop::impl::PotrfStep;

// The two lanes: a step may run at the same time as every step on the other lane that
// neither lane order nor wait_other puts before or after it; such pairs must not touch the
// same elements where one of them writes. Regions: Panel(c0, c1) reads and writes rows
// c0..n-1 of columns c0..c1-1; Update writes rows c0..n-1 of columns c0..c1-1 and reads rows
// c0..n-1 of columns k0..k1-1.
inline bool lanes_race_free(const std::vector<PotrfStep> &steps, int n, int *racing_i, int *racing_j) {
  struct Box { int r0, r1, c0, c1; };
  auto writes = [&](const PotrfStep &st) { return Box{st.c0, n, st.c0, st.c1}; };
  auto reads = [&](const PotrfStep &st) {
    return st.kind == PotrfStep::Panel ? Box{st.c0, n, st.c0, st.c1} : Box{st.c0, n, st.k0, st.k1};
  };
  auto meet = [](const Box &x, const Box &y) {
    return x.r0 < y.r1 && y.r0 < x.r1 && x.c0 < y.c1 && y.c0 < x.c1;
  };
  // done[i][l]: how many lane-l steps (in list order) have finished before step i starts.
  const size_t count = steps.size();
  std::vector<std::array<int, 2>> done(count), rank(count);
  std::array<int, 2> listed = {0, 0};
  std::array<int, 2> last = {-1, -1};  // the previous step on each lane
  for (size_t i = 0; i < count; ++i) {
    const int l = steps[i].lane, o = 1 - l;
    rank[i] = listed;
    done[i][l] = listed[l];
    done[i][o] = last[l] >= 0 ? done[size_t(last[l])][o] : 0;
    if (steps[i].wait_other) done[i][o] = listed[o];
    // Waiting for lane o's steps also waits for what they waited for on lane l: nothing new.
    ++listed[l];
    last[l] = static_cast<int>(i);
  }
  for (size_t j = 0; j < count; ++j)
    for (size_t i = 0; i < j; ++i) {
      const int li = steps[i].lane;
      if (li == steps[j].lane || rank[i][li] < done[j][li]) continue;  // ordered
      const Box wi = writes(steps[i]), wj = writes(steps[j]);
      if (meet(wi, wj) || meet(wi, reads(steps[j])) || meet(wj, reads(steps[i]))) {
        *racing_i = static_cast<int>(i);
        *racing_j = static_cast<int>(j);
        return false;
      }
    }
  return true;
}

}  // namespace potrf_lanes
