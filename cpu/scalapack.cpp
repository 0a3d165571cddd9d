// ScaLAPACK and BLACS found in the process (cpu/scalapack.h).
#include "cpu/scalapack.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace cudrop::cpu {

namespace {
template <class Fn>
bool global(Fn *out, const char *symbol) {
  *out = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, symbol));
  return *out != nullptr;
}
}  // namespace

const Blacs *blacs() {
  // Looked up once: a program that calls ScaLAPACK has loaded it before its first call.
  static const Blacs table = [] {
    Blacs b{};
    if (!global(&b.gridinfo, "blacs_gridinfo_") || !global(&b.dgebs2d, "dgebs2d_") ||
        !global(&b.dgebr2d, "dgebr2d_") || !global(&b.dgesd2d, "dgesd2d_") || !global(&b.dgerv2d, "dgerv2d_") ||
        !global(&b.igamx2d, "igamx2d_"))
      b = Blacs{};
    return b;
  }();
  return table.gridinfo != nullptr ? &table : nullptr;
}

void *scalapack_routine(const char *symbol) { return dlsym(RTLD_NEXT, symbol); }

void *require_scalapack_routine(const char *symbol) {
  if (void *fn = scalapack_routine(symbol)) return fn;
  std::fprintf(stderr,
               "cudrop: fatal: %s is a ScaLAPACK routine and no ScaLAPACK library follows cudrop in this "
               "process (link the program with ScaLAPACK, e.g. Debian's libscalapack-openmpi2.2)\n",
               symbol);
  std::abort();
}

}  // namespace cudrop::cpu
