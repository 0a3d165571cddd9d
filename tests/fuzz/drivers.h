#pragma once
// What the LAPACK drivers' cases share (qr.cpp, generalized.cpp): workspace lengths, whether a
// case may compute, one library's record of a driver call and its comparison.
#include <algorithm>

#include "tests/fuzz/arrays.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/library.h"

namespace fuzz {

// An LWORK (or LIWORK, LRWORK) for a routine whose minimum is `minimum`: a query (-1), one
// short, the minimum, or more.
inline int work_length(Rng &rng, long long minimum) {
  const uint64_t r = rng.below(100);
  const int m = int(std::min<long long>(std::max<long long>(minimum, 1), 1 << 20));
  if (r < 15) return -1;
  if (r < 22) return m - 1;
  if (r < 60) return m;
  return m + 1 + int(rng.below(200));
}

// Whether a case may compute here: not where its calls could reach the GPU.
inline bool may_compute() { return !g_options.gpu_bounds && !g_options.expect_gpu; }

// What one library's call gave.
template <class T> struct DriverRun {
  Array<T> a, b, work;
  Array<real_t<T>> w;
  int64_t info = 0;
  std::vector<HandlerCall> handlers;
};

template <class T> void compare(const DriverRun<T> &ref, const DriverRun<T> &got, bool outputs) {
  if (ref.info != got.info) difference("INFO: reference %lld, cudrop %lld", (long long)ref.info, (long long)got.info);
  check_untouched_outside("A", ref.a, got.a);
  check_untouched_outside("B", ref.b, got.b);
  check_untouched_outside("W", ref.w, got.w);
  if (!outputs) return;
  check_same_entries("A", ref.a, got.a);
  check_same_entries("B", ref.b, got.b);
  check_same_entries("W", ref.w, got.w);
  if (ref.work.rows > 0) check_same_entries("WORK(1)", ref.work, got.work);
}

// xSYEVD's and xHEEVD's minimum LWORK, LRWORK, LIWORK, which xSYGVD and xHEGVD require too.
struct EigenMinimum {
  long long lwork = 1, lrwork = 1, liwork = 1;
};
inline EigenMinimum divide_and_conquer_minimum(bool hermitian, bool vectors, int n) {
  EigenMinimum least;
  const long long nn = std::max(n, 0);
  if (nn <= 1) return least;
  least.lwork = hermitian ? (vectors ? 2 * nn + nn * nn : nn + 1) : (vectors ? 1 + 6 * nn + 2 * nn * nn : 2 * nn + 1);
  least.lrwork = vectors ? 1 + 5 * nn + 2 * nn * nn : nn;
  least.liwork = vectors ? 3 + 5 * nn : 1;
  return least;
}

template <class T> Array<T> one_entry(T value) {
  Array<T> a;
  a.rows = a.cols = a.ld = 1;
  a.data.assign(kGuard * 2 + 1, guard_value<T>());
  a.at(0, 0) = value;
  return a;
}

}  // namespace fuzz
