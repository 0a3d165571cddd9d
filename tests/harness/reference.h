#pragma once
// The reference LAPACK that the tests compare cudrop with, loaded so that cudrop does not
// interpose it: in a link namespace of its own (dlmopen), where it and the BLAS under it bind
// only to each other; where dlmopen fails, with RTLD_DEEPBIND (its own symbols first).
// Load it before the first cudrop call: cudrop may open the same library for its CPU path.
//
// CUDROP_TEST_REF_LAPACK names the library to use (only that one is tried); else Debian's
// netlib build, then whatever liblapack.so.3 the system's alternatives name, then OpenBLAS's.
#include <dlfcn.h>
#include <link.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

namespace harness {

struct ReferenceLapack {
  void *handle = nullptr;
  std::string how = "none";  // which library, how it was loaded
  explicit operator bool() const { return handle != nullptr; }
  template <class Fn> Fn symbol(const char *name) const {
    return handle ? reinterpret_cast<Fn>(dlsym(handle, name)) : nullptr;
  }
};

// The first candidate that loads and has every name in `needed`. OpenBLAS's own LAPACK
// routines are not the reference's algorithms (blocking, a NaN pivot that passes): a test
// that compares intermediate states passes accept_openblas = false.
inline ReferenceLapack load_reference_lapack(std::initializer_list<const char *> needed, bool accept_openblas) {
  const char *named = std::getenv("CUDROP_TEST_REF_LAPACK");
  std::vector<const char *> candidates;
  if (named && *named) candidates = {named};
  else candidates = {"/usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3", "liblapack.so.3",
                     "/usr/lib/x86_64-linux-gnu/openblas-pthread/liblapack.so.3"};
  for (const char *library : candidates) {
    ReferenceLapack ref;
    ref.handle = dlmopen(LM_ID_NEWLM, library, RTLD_NOW | RTLD_LOCAL);
    ref.how = std::string(library) + " in its own link namespace (dlmopen)";
    if (ref.handle == nullptr) {
      std::printf("note: dlmopen(%s): %s; trying dlopen with RTLD_DEEPBIND\n", library, dlerror());
      ref.handle = dlopen(library, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
      ref.how = std::string(library) + " (dlopen, RTLD_DEEPBIND)";
    }
    if (ref.handle == nullptr) {
      std::printf("note: no reference LAPACK at %s (%s)\n", library, dlerror());
      continue;
    }
    if (!accept_openblas && dlsym(ref.handle, "openblas_get_config") != nullptr) {
      std::printf("note: %s is OpenBLAS's, not the reference\n", library);
      continue;
    }
    bool complete = true;
    for (const char *name : needed) complete = complete && dlsym(ref.handle, name) != nullptr;
    if (!complete) {
      std::printf("note: %s lacks a routine this test compares\n", library);
      continue;
    }
    Dl_info info{};
    if (dladdr(dlsym(ref.handle, *needed.begin()), &info) && info.dli_fname) ref.how += std::string(" = ") + info.dli_fname;
    return ref;
  }
  return ReferenceLapack();
}

// A test that compares bit for bit: cudrop's CPU library underneath made the reference's (its
// LAPACK, found by `probe`, one of its routines, and the BLAS in its link namespace), unless the
// caller named one (CUDROP_CPU_LAPACK, CUDROP_CPU_BLAS). Before cudrop's first call.
inline void use_reference_underneath(const ReferenceLapack &reference, const char *probe, const char *program) {
  link_map *map = nullptr;
  if (dlinfo(reference.handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr) return;
  Dl_info info{};
  if (dladdr(reference.symbol<void *>(probe), &info) && info.dli_fname) setenv("CUDROP_CPU_LAPACK", info.dli_fname, 0);
  while (map->l_prev != nullptr) map = map->l_prev;
  for (; map != nullptr; map = map->l_next)
    if (std::strstr(map->l_name, "libblas") || std::strstr(map->l_name, "libopenblas")) {
      setenv("CUDROP_CPU_BLAS", map->l_name, 0);
      break;
    }
  const char *lapack = std::getenv("CUDROP_CPU_LAPACK"), *blas = std::getenv("CUDROP_CPU_BLAS");
  std::printf("%s: cudrop's CPU library: LAPACK %s, BLAS %s\n", program, lapack ? lapack : "(its own choice)",
              blas ? blas : "(its own choice)");
}

}  // namespace harness
