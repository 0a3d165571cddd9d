// The reference libraries and libcudrop, and the Fortran names this program defines so that
// the reference libraries' calls to each other reach the library whose entry is running.
#include "tests/fuzz/library.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "tests/fuzz/rows.h"

namespace fuzz {

Library g_reference{"reference", {}, {}};
Library g_cudrop{"cudrop", {}, {}};
Library *g_running = &g_reference;
int64_t g_wide_int_min = INT_MIN;

std::string symbol(Kind kind, char p, const char *stem, Names names) {
  const std::string core = std::string(1, p) + stem;
  const bool w = names == Names::wheel || names == Names::wheel64;
  const std::string prefix = w ? "scipy_" : "";
  switch (kind) {
    case Kind::blas:
    case Kind::lapack: return prefix + core + (wide(names) ? "_64_" : "_");
    case Kind::cblas: return prefix + "cblas_" + core + (wide(names) ? "64_" : "");
    default: return "cudrop_" + core + "_";
  }
}

void *Library::find(const std::string &name) {
  const auto known = symbols.find(name);
  if (known != symbols.end()) return known->second;
  for (void *handle : handles)
    if (void *fn = dlsym(handle, name.c_str())) return symbols[name] = fn;
  std::fprintf(stderr, "fuzz: the %s library has no %s\n", this->name, name.c_str());
  std::exit(2);
}

std::string reference_path(const char *file) {
  const char *root = std::getenv("CUDROP_NETLIB_DIR");
  return std::string(root != nullptr ? root : "") + "/usr/lib/x86_64-linux-gnu/" + file;
}

namespace {
// For shim.cpp's stand-in routines: the reference's LP64 routine `name`.
void *reference_routine(const char *name) { return g_reference.find(name); }

// The wheels' libraries and the ILP64 library, as cudrop finds them underneath (cpu/backend.cpp:
// in an object the process has loaded, before the system's files): shim.cpp's stand-in, each
// routine the reference's LP64 one. FUZZ_SHIM: its file (tests/fuzz/CMakeLists.txt); else, or
// where the build tree has moved, the one beside this program.
void load_shim() {
  std::string path;
#ifdef FUZZ_SHIM
  path = FUZZ_SHIM;
#endif
  void *shim = path.empty() ? nullptr : dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (shim == nullptr) {
    char self[4096];
    const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    const std::string program = length > 0 ? std::string(self, size_t(length)) : std::string();
    path = program.substr(0, program.rfind('/') + 1) + "libcudrop_fuzz_shim.so";
    shim = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  }
  if (shim == nullptr) {
    std::fprintf(stderr, "fuzz: cannot load the stand-in library %s: %s\n", path.c_str(), dlerror());
    std::exit(2);
  }
  using Bind = void (*)(void *(*)(const char *));
  reinterpret_cast<Bind>(dlsym(shim, "fuzz_shim_bind"))(&reference_routine);
}
}  // namespace

void load_libraries() {
  const std::string blas_file = reference_path("blas/libblas.so.3"), lapack_file = reference_path("lapack/liblapack.so.3");
  void *blas = dlopen(blas_file.c_str(), RTLD_NOW | RTLD_LOCAL);
  void *lapack = dlopen(lapack_file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (blas == nullptr || lapack == nullptr) {
    std::printf("SKIP: reference libraries not found (%s); apt-get install libblas3 liblapack3\n", dlerror());
    std::exit(harness::kSkipped);
  }
  g_reference.handles = {blas, lapack};
  register_power_model(g_reference);

  // libcudrop's own definitions (this program's Fortran names come first in the global scope).
  Dl_info info{};
  if (dladdr(dlsym(RTLD_DEFAULT, "cudrop_version"), &info) == 0 || info.dli_fname == nullptr) {
    std::fprintf(stderr, "fuzz: libcudrop not found in the process\n");
    std::exit(2);
  }
  void *cudrop = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  if (cudrop == nullptr) {
    std::fprintf(stderr, "fuzz: cannot reopen %s: %s\n", info.dli_fname, dlerror());
    std::exit(2);
  }
  g_cudrop.handles = {cudrop};
  for (const char *name : {"sgemm_", "zposv_", "cblas_ztrsm", "dgemm_64_", "scipy_cblas_zher2k64_", "cudrop_dcsrpower_"}) {
    Dl_info where{};
    if (dladdr(g_cudrop.find(name), &where) == 0 || where.dli_fbase != info.dli_fbase) {
      std::fprintf(stderr, "fuzz: cudrop's %s does not come from %s\n", name, info.dli_fname);
      std::exit(2);
    }
  }
  load_shim();
}

void check_handlers(const std::vector<HandlerCall> &ref, const std::vector<HandlerCall> &got) {
  if (!(ref == got))
    difference("error handlers: reference %s, cudrop %s", describe(ref).c_str(), describe(got).c_str());
}

void check_counts(const harness::Counters &before, const harness::Counters &after, bool works) {
  g_computing += works;
  const long gpu = after.gpu - before.gpu, cpu = after.cpu - before.cpu, fallbacks = after.fallbacks - before.fallbacks;
  if (fallbacks != 0) difference("counters: %ld GPU fallbacks", fallbacks);
  else if (!works && gpu != 0) difference("counters: a call that computes nothing counted %ld GPU calls", gpu);
  else if (works && g_options.expect_gpu && !g_reference_semantics && (gpu < 1 || cpu != 0))
    difference("counters: expected the call on the GPU, got gpu %ld cpu %ld", gpu, cpu);
  else if (works && (!g_options.expect_gpu || g_reference_semantics) && (gpu != 0 || cpu < 1))
    difference("counters: expected the call on the CPU, got gpu %ld cpu %ld", gpu, cpu);
}

}  // namespace fuzz

// The reference CBLAS calls the Fortran routines, and the reference LAPACK calls BLAS and
// LAPACK routines (dgesv_ -> dgetrf_ -> dtrsm_, dgemm_), through the global scope, where
// libcudrop (linked into this program) would answer. These definitions of every Fortran name
// cudrop exports, first in that scope, send such inner calls to the library whose entry is
// running: the reference stays the reference (also when cudrop runs on a GPU), and cudrop's
// CPU path sees cudrop's routines inside the library underneath, as a preloaded process does.
#define FUZZ_FORWARDER(p, T_, kind, stem, parameters, arguments)                       \
  namespace fuzz::forward_##p##stem {                                                  \
  using T = T_;                                                                        \
  using I = int;                                                                       \
  using P = int;                                                                       \
  extern "C" void CUDROP_SYMBOL(kind, p, stem) parameters {                           \
    static const std::string name = CUDROP_STRING(CUDROP_SYMBOL(kind, p, stem));     \
    g_running->get<void(*) parameters>(name) arguments;                              \
  }                                                                                    \
  }
#define CUDROP_ROUTINE(kind, stem, precisions, entry, parameters, arguments, renumbering) \
  FUZZ_IF_FORTRAN(kind, entry)(FUZZ_EACH_PRECISION(precisions, FUZZ_FORWARDER, kind, stem, parameters, arguments))
#include "routines.def"
#undef CUDROP_ROUTINE
