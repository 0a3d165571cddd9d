// The vector copy: Fortran ?copy_ and cblas_?copy (s, d, c, z), y(iy) = x(ix) for n elements, reference
// semantics (dcopy.f: no argument checks, n <= 0 returns, a negative increment starts at the
// far end, a zero one repeats one element). numpy's linalg copies each operand to and from
// Fortran order with one ?copy_ per row, every element of it a page from the last: such long,
// widely strided copies are split over host threads (impl/context/host_copy.h, the same
// elements in the same places); every other one is the CPU library's.
#include <algorithm>
#include <cstdlib>

#include "core/routines.h"
#include "cpu/backend.h"
#include "impl/context/host_copy.h"
#include "route/dispatch.h"

namespace cudrop::capi {
namespace {

// A call of either face: on the copy threads where it is long and widely strided, else
// cpu_run() (the CPU library's routine, or an ILP64 or wheel entry's own).
template <class T, class CpuRun>
void copy_vector(int n, const T *x, int incx, T *y, int incy, const char *name, CpuRun &&cpu_run) {
  if (n <= 0) return;
  const env::Environment &s = settings();
  const size_t widest = size_t(std::max(std::llabs(incx), std::llabs(incy))) * sizeof(T);
  const bool threads = s.mode != Mode::Cpu && n >= s.copy_split_n && widest >= s.copy_split_stride;
  route_cpu(name, [&] {
    if (threads && impl::copy_vector(n, x, incx, y, incy, sizeof(T), s.copy_threads)) return;
    if (!cpu::take_entry_cpu_call()) cpu_run();
  });
}

}  // namespace

template <class T>
void copy(const int *n, const T *x, const int *incx, T *y, const int *incy, const void * /*caller*/) {
  copy_vector(*n, x, *incx, y, *incy, routine_names<Family::copy, T>.symbol,
              [&] { cpu::routine_cached<Family::copy, T>()(n, x, incx, y, incy); });
}

template <class T>
void cblas_copy(int n, const T *x, int incx, T *y, int incy, const void * /*caller*/) {
  copy_vector(n, x, incx, y, incy, routine_names<Family::cblas_copy, T>.symbol,
              [&] { cpu::routine_cached<Family::cblas_copy, T>()(n, x, incx, y, incy); });
}

}  // namespace cudrop::capi

#define CUDROP_DEFINES_copy CUDROP_DEFINED
#define CUDROP_DEFINES_cblas_copy CUDROP_DEFINED
#include "capi/instantiate.h"
