#include "cpu/backend.h"
#include "cpu/origin.h"

#include <dlfcn.h>
#include <link.h>
#include <sys/auxv.h>

#include <algorithm>
#include <cctype>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "core/env.h"
#include "core/log.h"

namespace cudrop::cpu {
namespace {

enum class Kind { Blas, Lapack };

struct Entry {
  const char *symbol;
  Kind kind;
  bool wheel = false;  // a name of the PyPI wheels' OpenBLAS (scipy_dgemm_, scipy_dgemm_64_)
};

// In cpu::Routine's order: the rows of routines.def found underneath, each precision.
constexpr Kind kLibraryOf_blas = Kind::Blas, kLibraryOf_cblas = Kind::Blas, kLibraryOf_lapack = Kind::Lapack;
constexpr Entry kRoutines[] = {
#define CUDROP_CPU_ENTRY(p, T, kind, stem)                                      \
  {CUDROP_STRING(CUDROP_SYMBOL(kind, p, stem)), kLibraryOf_##kind},             \
      {CUDROP_STRING(CUDROP_SYMBOL64(kind, p, stem)), kLibraryOf_##kind},       \
      {CUDROP_STRING(CUDROP_SYMBOL_WHEEL(kind, p, stem)), kLibraryOf_##kind, true}, \
      {CUDROP_STRING(CUDROP_SYMBOL_WHEEL64(kind, p, stem)), kLibraryOf_##kind, true},
#define CUDROP_ROUTINE(kind, stem, precisions, ...) \
  CUDROP_IF_UNDERNEATH(kind)(CUDROP_EACH_PRECISION(precisions, CUDROP_CPU_ENTRY, kind, stem))
#include "routines.def"
#undef CUDROP_ROUTINE
#undef CUDROP_CPU_ENTRY
};
static_assert(sizeof(kRoutines) / sizeof(kRoutines[0]) == static_cast<size_t>(Routine::count));

// The system's library directory for this architecture (Debian's multiarch name).
#if defined(__x86_64__)
#define CUDROP_LIBDIR "/usr/lib/x86_64-linux-gnu"
#elif defined(__aarch64__)
#define CUDROP_LIBDIR "/usr/lib/aarch64-linux-gnu"
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define CUDROP_LIBDIR "/usr/lib/powerpc64le-linux-gnu"
#else
#define CUDROP_LIBDIR "/usr/lib"
#endif

// Libraries tried, in order, when the symbol is not already next in the lookup order: absolute
// paths in the system's library directories only, so that neither the current directory nor a
// variable of the environment ever chooses the file (docs/security.md); a library elsewhere is
// named with CUDROP_CPU_BLAS / CUDROP_CPU_LAPACK. The tuned libraries come first, then the
// libblas.so.3 alternative and the directories behind it, so that "cudrop installed as
// libblas.so.3" (the alternative is cudrop, skipped) still reaches the real library.
constexpr const char *kBlasCandidates[] = {
    CUDROP_LIBDIR "/libopenblas.so.0", CUDROP_LIBDIR "/libblis.so.4", CUDROP_LIBDIR "/libmkl_rt.so.2",
    CUDROP_LIBDIR "/libblas.so.3",
    CUDROP_LIBDIR "/openblas-pthread/libblas.so.3",
    CUDROP_LIBDIR "/openblas-openmp/libblas.so.3",
    CUDROP_LIBDIR "/blis-openmp/libblas.so.3",
    CUDROP_LIBDIR "/blis-pthread/libblas.so.3",
    CUDROP_LIBDIR "/blas/libblas.so.3",
    "/usr/lib64/libopenblas.so.0", "/usr/lib64/libblas.so.3",
    "/usr/lib/libopenblas.so.0", "/usr/lib/libblas.so.3"};
constexpr const char *kLapackCandidates[] = {
    CUDROP_LIBDIR "/libopenblas.so.0", CUDROP_LIBDIR "/libmkl_rt.so.2", CUDROP_LIBDIR "/liblapack.so.3",
    CUDROP_LIBDIR "/openblas-pthread/liblapack.so.3",
    CUDROP_LIBDIR "/openblas-openmp/liblapack.so.3",
    CUDROP_LIBDIR "/lapack/liblapack.so.3",
    "/usr/lib64/libopenblas.so.0", "/usr/lib64/liblapack.so.3",
    "/usr/lib/libopenblas.so.0", "/usr/lib/liblapack.so.3"};

// ILP64 libraries (64-bit integers): OpenBLAS built with SYMBOLSUFFIX=64_ (Julia's, and
// libblastrampoline's convention) exports suffixed names; the rest, the unsuffixed ones of
// Debian's libblas64-3 / liblapack64-3 / libopenblas64-0-* (same names as LP64, other soname).
constexpr const char *kSuffixed64Candidates[] = {
    CUDROP_LIBDIR "/libopenblas64_.so.0", "/usr/lib64/libopenblas64_.so.0", "/usr/lib/libopenblas64_.so.0"};
constexpr const char *kBlas64Candidates[] = {
    CUDROP_LIBDIR "/libopenblas64.so.0", CUDROP_LIBDIR "/libblas64.so.3",
    CUDROP_LIBDIR "/openblas64-pthread/libblas64.so.3",
    CUDROP_LIBDIR "/openblas64-openmp/libblas64.so.3",
    CUDROP_LIBDIR "/openblas64-serial/libblas64.so.3",
    CUDROP_LIBDIR "/blas64/libblas64.so.3",
    "/usr/lib64/libopenblas64.so.0"};
constexpr const char *kLapack64Candidates[] = {
    CUDROP_LIBDIR "/libopenblas64.so.0", CUDROP_LIBDIR "/liblapack64.so.3",
    CUDROP_LIBDIR "/openblas64-pthread/liblapack64.so.3",
    CUDROP_LIBDIR "/openblas64-openmp/liblapack64.so.3",
    CUDROP_LIBDIR "/openblas64-serial/liblapack64.so.3",
    CUDROP_LIBDIR "/lapack64/liblapack64.so.3",
    "/usr/lib64/libopenblas64.so.0"};

// Every candidate above is an absolute path.
template <size_t N> constexpr bool all_absolute(const char *const (&paths)[N]) {
  for (const char *path : paths)
    if (path[0] != '/') return false;
  return true;
}
static_assert(all_absolute(kBlasCandidates) && all_absolute(kLapackCandidates) &&
                  all_absolute(kSuffixed64Candidates) && all_absolute(kBlas64Candidates) &&
                  all_absolute(kLapack64Candidates),
              "the search list is absolute paths: a bare name would follow LD_LIBRARY_PATH or the run path");

const void *own_base() {
  static const void *base = [] {
    Dl_info info{};
    dladdr(reinterpret_cast<void *>(&own_base), &info);
    return info.dli_fbase;
  }();
  return base;
}

// True when the object loaded at `base` (file `file`) is a cudrop: it defines cudrop_version
// itself (dlsym on a handle also searches the object's dependencies, hence the base check).
bool is_a_cudrop(const char *file, const void *base) {
  if (file == nullptr || *file == '\0') return false;  // the program itself
  void *handle = dlopen(file, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return false;
  bool cudrop = false;
  if (void *version = dlsym(handle, "cudrop_version")) {
    Dl_info info{};
    cudrop = dladdr(version, &info) != 0 && info.dli_fbase == base;
  }
  dlclose(handle);
  return cudrop;
}

// A symbol that lives in libcudrop itself (under any file name, e.g. when cudrop is
// installed as libblas.so.3), or in another copy of it, would have the two call each other
// forever: reject it, and say so once per other copy: always when the user named it
// (CUDROP_CPU_BLAS/LAPACK: a setting that cannot work), else only when verbose (a process meets
// a second copy legitimately when libcudrop.so is preloaded where the system libblas.so.3 is
// cudrop's complete library, and must print what it prints without cudrop).
void *accept_foreign(void *fn, bool named_by_user = false) {
  if (fn == nullptr) return nullptr;
  Dl_info info{};
  if (dladdr(fn, &info) == 0) return fn;
  if (info.dli_fbase == own_base()) return nullptr;
  if (is_a_cudrop(info.dli_fname, info.dli_fbase)) {
    static std::mutex told_mutex;
    static std::vector<const void *> told;
    std::lock_guard<std::mutex> lock(told_mutex);
    if (std::find(told.begin(), told.end(), info.dli_fbase) == told.end()) {
      told.push_back(info.dli_fbase);
      log(named_by_user ? 0 : 1, "%s is another copy of cudrop, not a CPU BLAS/LAPACK: skipped", info.dli_fname);
    }
    return nullptr;
  }
  return fn;
}

// deep_bind: the library's own calls bind to its own definitions first (RTLD_DEEPBIND), for an
// ILP64 library with the LP64 names (see find_by_name64).
void *from_library(const char *library, const char *symbol, bool named_by_user = false, bool deep_bind = false) {
  void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL | (deep_bind ? RTLD_DEEPBIND : 0));
  if (handle == nullptr) return nullptr;
  void *fn = accept_foreign(dlsym(handle, symbol), named_by_user);
  if (fn == nullptr) dlclose(handle);
  return fn;
}

// The rule that found a routine (cudrop-info tells it): a fixed text, and the candidate of
// the search list that gave it.
struct How {
  const char *rule = "not found";
  const char *candidate = nullptr;
};

template <size_t N>
void *from_candidates(const char *const (&candidates)[N], const char *symbol, How *how, bool deep_bind = false) {
  for (const char *library : candidates)
    if (void *fn = from_library(library, symbol, false, deep_bind)) {
      *how = {"the search list", library};
      return fn;
    }
  return nullptr;
}

// `symbol` in an object the process has loaded, however it was loaded (the libraries a Python
// extension module needs are loaded RTLD_LOCAL: not in the global scope RTLD_NEXT searches),
// in load order; never a cudrop. For names that only one kind of library defines: the PyPI
// wheels' OpenBLAS (scipy_dgemm_64_) and OpenBLAS's ILP64 suffix (dgemm_64_).
std::vector<std::string> loaded_files();
void *find_loaded(const char *symbol) {
  for (const std::string &file : loaded_files()) {  // not under dl_iterate_phdr's lock: dlopen takes it
    void *handle = dlopen(file.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (handle == nullptr) continue;
    void *fn = accept_foreign(dlsym(handle, symbol));
    dlclose(handle);
    if (fn != nullptr) return fn;
  }
  return nullptr;
}
constexpr const char *kWheelRule = "a PyPI wheel's library loaded in the process";

// The loaded objects' files, in load order (the program itself, and the vDSO, have no path).
std::vector<std::string> loaded_files() {
  std::vector<std::string> files;
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) {
        if (info->dlpi_name != nullptr && info->dlpi_name[0] == '/')
          static_cast<std::vector<std::string> *>(data)->emplace_back(info->dlpi_name);
        return 0;
      },
      &files);
  return files;
}

void *find_suffixed64(const char *symbol, bool lapack);
constexpr const char *kIlp64Rule = "an ILP64 library";

// A routine with 64-bit integers: OpenBLAS's suffix (dgemm_64_, cblas_dgemm64_, scipy_dgemm_64_).
bool is_ilp64_name(const char *symbol) {
  const size_t length = std::strlen(symbol);
  return length > 3 && std::strcmp(symbol + length - 3, "64_") == 0;
}

void *resolve(const Entry &entry, How *how) {
  // A PyPI wheel's name: only in the wheel's own library, which the caller has loaded.
  if (entry.wheel) {
    how->rule = kWheelRule;
    if (void *fn = accept_foreign(dlsym(RTLD_NEXT, entry.symbol))) return fn;
    return find_loaded(entry.symbol);
  }
  // A routine with 64-bit integers (dgemm_64_, cblas_dgemm64_): only an ILP64 library's will do.
  if (is_ilp64_name(entry.symbol)) {
    how->rule = kIlp64Rule;
    return find_suffixed64(entry.symbol, entry.kind == Kind::Lapack);
  }
  // 1. Whatever comes after us in the lookup order (the BLAS the program itself loaded); not in
  //    libcudrop64, whose process's unsuffixed names are ILP64 ones.
  if (void *fn = ilp64_names_are_global ? nullptr : accept_foreign(dlsym(RTLD_NEXT, entry.symbol))) {
    how->rule = "loaded in the process";
    return fn;
  }
  // 2. The library the user named.
  const env::Environment &e = env::environment();
  const char *named = entry.kind == Kind::Blas ? e.cpu_blas : e.cpu_lapack;
  if (named != nullptr) {
    const char *setting = entry.kind == Kind::Blas ? "CUDROP_CPU_BLAS" : "CUDROP_CPU_LAPACK";
    if (void *fn = from_library(named, entry.symbol, true)) {
      how->rule = setting;
      return fn;
    }
    const char *error = dlerror();  // freed by the next dl* call
    const std::string why = error != nullptr ? error : "";
    if (void *loaded = dlopen(named, RTLD_LAZY | RTLD_LOCAL)) {
      dlclose(loaded);
      log(1, "%s does not provide %s (%s)", named, entry.symbol, !why.empty() ? why.c_str() : "symbol missing or is cudrop's");
    } else {  // a setting that cannot work is said whatever CUDROP_VERBOSE says, once
      const std::string expected = "a library that can be loaded (" + (!why.empty() ? why : "dlopen failed") + ")";
      env::warn_invalid(setting, named, expected.c_str(),
                        e.no_cpu_search ? "only the library loaded in the process" : "the search list");
    }
  }
  // 3. The usual sonames and paths (CUDROP_NO_CPU_SEARCH=1 stops here, e.g. to test the
  //    "no CPU library at all" path on a machine that has one).
  if (e.no_cpu_search) return nullptr;
  if (void *fn = entry.kind == Kind::Blas ? from_candidates(kBlasCandidates, entry.symbol, how)
                                          : from_candidates(kLapackCandidates, entry.symbol, how))
    return fn;
  // 4. The LP64 routine of scipy's wheel (scipy_dgemm_), where pip's scipy is all the process
  //    has: the CPU part of a call that a wheel's entry began on the GPU.
  if (ilp64_names_are_global) return nullptr;
  const std::string wheel_name = std::string("scipy_") + entry.symbol;
  if (void *fn = find_loaded(wheel_name.c_str())) {
    how->rule = kWheelRule;
    return fn;
  }
  return nullptr;
}

// Adds the executable segments of the object holding fn to cudrop_cpu_code (backend.h's
// CodeRange), once per object; past kCpuCodeRanges objects the calls of the rest count as the
// program's.
void note_cpu_code(const void *fn) {
  static auto *mutex = new std::mutex;  // never destroyed: forwarders resolve during exit too
  struct Found {
    uintptr_t address, lo = 0, hi = 0;
  } found{reinterpret_cast<uintptr_t>(fn)};
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) {
        auto *f = static_cast<Found *>(data);
        uintptr_t lo = UINTPTR_MAX, hi = 0;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr) &ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X) == 0) continue;
          lo = std::min<uintptr_t>(lo, info->dlpi_addr + ph.p_vaddr);
          hi = std::max<uintptr_t>(hi, info->dlpi_addr + ph.p_vaddr + ph.p_memsz);
        }
        if (f->address < lo || f->address >= hi) return 0;
        // Never the program's own code (its name is empty): its calls are the program's.
        if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0') f->lo = lo, f->hi = hi;
        return 1;
      },
      &found);
  if (found.hi == 0) return;
  std::lock_guard<std::mutex> lock(*mutex);
  for (CodeRange &r : cudrop_cpu_code) {
    const uintptr_t hi = r.hi.load(std::memory_order_relaxed);
    if (hi == found.hi) return;
    if (hi != 0) continue;
    r.lo.store(found.lo, std::memory_order_relaxed);
    r.hi.store(found.hi, std::memory_order_release);
    return;
  }
}

// What CUDROP_VERBOSE says of a CPU routine found: at 1 the library, once per file and kind
// ("cudrop: CPU BLAS: FILE (RULE)"); at 2 every routine as well ("cudrop: CPU dgemm_ from
// FILE"), of which a stand-in resolves dozens, LAPACK's lsame_ and ilaenv_ among them.
void tell_found(const char *symbol, const void *fn, Kind kind, bool ilp64, const char *rule) {
  note_cpu_code(fn);
  if (settings().verbose < 1) return;
  Dl_info info{};
  const char *file = dladdr(fn, &info) != 0 && info.dli_fname != nullptr ? info.dli_fname : "?";
  const std::string library = std::string(kind == Kind::Lapack ? "LAPACK" : "BLAS") + (ilp64 ? " (64-bit integers)" : "");
  {
    static auto *told_mutex = new std::mutex;  // never destroyed: forwarders resolve during exit too
    static auto *told = new std::vector<std::string>;
    const std::string key = library + ": " + file;
    std::lock_guard<std::mutex> lock(*told_mutex);
    if (std::find(told->begin(), told->end(), key) == told->end()) {
      told->push_back(key);
      log(1, "CPU %s (%s)", key.c_str(), rule);
    }
  }
  if (ilp64) log(2, "CPU %s (64-bit integers) from %s", symbol, file);
  else log(2, "CPU %s from %s", symbol, file);
}

// resolve(), and the verbose lines naming the file it found.
void *resolve_and_log(const Entry &entry, How *how) {
  void *fn = resolve(entry, how);
  if (fn != nullptr && how->rule != kIlp64Rule)  // find_by_name64 said it
    tell_found(entry.symbol, fn, entry.kind, false, how->rule);
  return fn;
}

struct Table {
  std::array<void *, static_cast<size_t>(Routine::count)> fn{};
  std::array<std::once_flag, static_cast<size_t>(Routine::count)> once;
  std::array<How, static_cast<size_t>(Routine::count)> how{};
};

Table &table() {
  static Table *t = new Table;  // never destroyed: may be used from other libraries' atexit handlers
  return *t;
}

}  // namespace

namespace detail {
std::atomic<void *> resolved[static_cast<size_t>(Routine::count)] = {};
}  // namespace detail
}  // namespace cudrop::cpu

cudrop::cpu::CodeRange cudrop_cpu_code[cudrop::cpu::kCpuCodeRanges] = {};

namespace cudrop::cpu {

void *find(Routine routine) {
  const auto index = static_cast<size_t>(routine);
  Table &t = table();
  std::call_once(t.once[index], [&] {
    t.fn[index] = resolve_and_log(kRoutines[index], &t.how[index]);
    detail::resolved[index].store(t.fn[index], std::memory_order_release);
  });
  return t.fn[index];
}

std::vector<Origin> origins() {
  std::vector<Origin> list;
  for (size_t index = 0; index < static_cast<size_t>(Routine::count); ++index) {
    Origin origin;
    origin.symbol = kRoutines[index].symbol;
    void *fn = find(static_cast<Routine>(index));
    if (fn == nullptr && kRoutines[index].wheel) continue;  // no wheel loaded: nothing to tell
    if (fn != nullptr) {
      Dl_info info{};
      if (dladdr(fn, &info) != 0 && info.dli_fname != nullptr) origin.library = info.dli_fname;
      if (origin.library.empty()) origin.library = "?";
    }
    const How &how = table().how[index];
    origin.rule = how.rule;
    origin.how = how.rule;
    if (how.candidate != nullptr) origin.how = origin.how + " (" + how.candidate + ")";
    origin.lapack = kRoutines[index].kind == Kind::Lapack;
    origin.ilp64 = is_ilp64_name(kRoutines[index].symbol);
    list.push_back(std::move(origin));
  }
  return list;
}

std::vector<std::string> unknown_blas_libraries() {
  std::vector<std::string> unknown;
  for (const std::string &file : loaded_files()) {
    const std::string name = file.substr(file.rfind('/') + 1);
    std::string lower(name.size(), ' ');
    std::transform(name.begin(), name.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (lower.find("openblas") == std::string::npos) continue;
    void *handle = dlopen(file.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (handle == nullptr) continue;
    bool known = false;
    for (const char *dgemm : {"dgemm_", "dgemm_64_", "scipy_dgemm_", "scipy_dgemm_64_"}) {
      Dl_info info{};
      void *fn = dlsym(handle, dgemm);  // its own definition, not a dependency's
      known |= fn != nullptr && dladdr(fn, &info) != 0 && info.dli_fname != nullptr && file == info.dli_fname;
    }
    dlclose(handle);
    if (!known) unknown.push_back(file);
  }
  return unknown;
}

// `symbol` in the dependency scope of the object holding `address` (a handle searches that
// object and its dependencies, not the global scope); nullptr for cudrop itself.
void *find_in_scope_of(const void *address, const char *symbol) {
  Dl_info info{};
  if (address == nullptr || dladdr(address, &info) == 0 || info.dli_fbase == own_base() ||
      info.dli_fname == nullptr || info.dli_fname[0] == '\0')
    return nullptr;
  void *handle = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return nullptr;
  void *fn = accept_foreign(dlsym(handle, symbol));
  dlclose(handle);
  return fn;
}

void *find_global(const char *symbol) {
  // Not RTLD_DEFAULT: that searches the scope of the calling object, which for a libcudrop
  // loaded as the dependency of a library loaded RTLD_LOCAL includes that library's group.
  // The program's handle searches the global scope alone.
  static void *const program = dlopen(nullptr, RTLD_LAZY);
  return program != nullptr ? accept_foreign(dlsym(program, symbol)) : nullptr;
}

namespace {
// True when both addresses lie in the same loaded object.
bool same_object(const void *a, const void *b) {
  Dl_info ia{}, ib{};
  return dladdr(a, &ia) != 0 && dladdr(b, &ib) != 0 && ia.dli_fbase == ib.dli_fbase;
}

// True for an address inside the executable itself (not a shared library).
bool in_main_program(const void *address) {
  static const void *const program_base = [] {
    Dl_info info{};
    const void *headers = reinterpret_cast<const void *>(getauxval(AT_PHDR));
    return headers != nullptr && dladdr(headers, &info) != 0 ? info.dli_fbase : nullptr;
  }();
  Dl_info info{};
  return program_base != nullptr && dladdr(address, &info) != 0 && info.dli_fbase == program_base;
}
}  // namespace

void *find_for_illegal_call(Routine routine, const void *return_address,
                            std::initializer_list<const char *> handlers) {
  // A handler the program defines itself is called directly: some CPU libraries (OpenBLAS)
  // bind their checks to their own xerbla_, and a program that defines XERBLA expects it to
  // be called (the netlib testers, the reference's documented override).
  for (const char *handler : handlers)
    if (const void *own = find_global(handler); own != nullptr && in_main_program(own)) return nullptr;
  const char *symbol = kRoutines[static_cast<size_t>(routine)].symbol;
  // The caller's own definition is never the one underneath: a wrapper (a profiler's sgemm_
  // that hands each call to the next definition, cudrop's) would call cudrop again, forever.
  if (void *fn = find_in_scope_of(return_address, symbol); fn != nullptr && !same_object(fn, return_address))
    return fn;
  void *fn = find(routine);
  if (fn == nullptr) return nullptr;
  for (const char *handler : handlers) {
    if (find_global(handler) != nullptr) continue;  // both reach the same one
    void *callers = find_in_scope_of(return_address, handler);
    if (callers != nullptr && callers != find_in_scope_of(fn, handler)) return nullptr;
  }
  return fn;
}

void *find_by_name(const char *symbol, bool lapack) {
  How how;
  return resolve_and_log({symbol, lapack ? Kind::Lapack : Kind::Blas}, &how);
}

// deep_bind: see cpu_backend.h.
void *find_by_name64(const char *suffixed, const char *plain, bool lapack, bool deep_bind) {
  How how;
  void *fn = accept_foreign(dlsym(RTLD_NEXT, suffixed));
  if (fn == nullptr) fn = find_loaded(suffixed);  // numpy 1.x wheels' libopenblas64_p, loaded RTLD_LOCAL
  if (fn == nullptr && !env::environment().no_cpu_search) {
    fn = from_candidates(kSuffixed64Candidates, suffixed, &how);
    if (fn == nullptr)
      fn = lapack ? from_candidates(kLapack64Candidates, plain, &how, deep_bind)
                  : from_candidates(kBlas64Candidates, plain, &how, deep_bind);
  }
  if (fn != nullptr)
    tell_found(suffixed, fn, lapack ? Kind::Lapack : Kind::Blas, true,
               how.candidate != nullptr ? how.rule : "loaded in the process");
  return fn;
}

namespace {
// dgemm_64_ underneath cudrop's accelerated ILP64 dgemm_64_ (or libcudrop64's dgemm_): the
// unsuffixed name is tried in an ILP64 file, deep-bound where the process's global unsuffixed
// names are LP64 (libcudrop's beside it), not in libcudrop64 (find_by_name64 says why).
void *find_suffixed64(const char *symbol, bool lapack) {
  std::string plain(symbol);
  plain.erase(plain.size() - 3);  // dgemm_64_ -> dgemm_, cblas_dgemm64_ -> cblas_dgemm
  return find_by_name64(symbol, plain.c_str(), lapack, !ilp64_names_are_global);
}
}  // namespace

// CUDROP_NO_CPU_SEARCH=1 keeps cudrop from the search list: a library that is installed may be
// what the call lacks, so the fatal message names the setting, and the library where there is one.
constexpr const char *kNoSearchHint = " and unset CUDROP_NO_CPU_SEARCH (it keeps cudrop from searching the usual libraries)";

void missing64(const char *symbol, bool lapack) {
  std::fprintf(stderr,
               "cudrop: fatal: this call needs the CPU %s routine %s with 64-bit integers, and no "
               "ILP64 %s library provides it.\n"
               "cudrop: install one (e.g. `apt install %s`)%s\n",
               lapack ? "LAPACK" : "BLAS", symbol, lapack ? "LAPACK" : "BLAS",
               lapack ? "liblapack64-3" : "libopenblas64-0 (or libblas64-3)",
               env::environment().no_cpu_search ? kNoSearchHint : "");
  std::abort();
}

void missing(const char *symbol, bool lapack) {
  const char *setting = lapack ? "CUDROP_CPU_LAPACK" : "CUDROP_CPU_BLAS";
  const char *file = lapack ? "lapack" : "blas";
  std::fprintf(stderr,
               "cudrop: fatal: this call needs the CPU %s routine %s (CUDROP_MODE=cpu, no usable "
               "GPU, a call too small for it, or a routine cudrop forwards), and no CPU %s library "
               "provides it.\n",
               lapack ? "LAPACK" : "BLAS", symbol, lapack ? "LAPACK" : "BLAS");
  const char *package = lapack ? "liblapack3" : "libopenblas0 (or libblas3)";
  How searched;
  if (!env::environment().no_cpu_search)
    std::fprintf(stderr, "cudrop: install one (e.g. `apt install %s`) or name it with %s=/path/to/lib%s.so\n",
                 package, setting, file);
  else if (lapack ? from_candidates(kLapackCandidates, symbol, &searched)
                  : from_candidates(kBlasCandidates, symbol, &searched))
    std::fprintf(stderr,
                 "cudrop: %s provides it, but CUDROP_NO_CPU_SEARCH=1 keeps cudrop from searching the usual "
                 "libraries: unset it, or name one with %s=/path/to/lib%s.so\n",
                 searched.candidate, setting, file);
  else
    std::fprintf(stderr, "cudrop: install one (e.g. `apt install %s`)%s, or name it with %s=/path/to/lib%s.so\n",
                 package, kNoSearchHint, setting, file);
  std::abort();
}

void *require(Routine routine) {
  if (void *fn = find(routine)) return fn;
  const Entry &entry = kRoutines[static_cast<size_t>(routine)];
  if (is_ilp64_name(entry.symbol)) {
    // The name the program called: libcudrop64's is the unsuffixed one.
    const std::string plain = std::string(entry.symbol, std::strlen(entry.symbol) - 3);
    missing64(ilp64_names_are_global ? plain.c_str() : entry.symbol, entry.kind == Kind::Lapack);
  }
  missing(entry.symbol, entry.kind == Kind::Lapack);
}

thread_local EntryCpuCall *entry_cpu_call = nullptr;

}  // namespace cudrop::cpu
