// cudrop's ?copy_ and cblas_?copy (capi/copy.cpp) against the CPU library's (the one cudrop
// runs on, found among the loaded objects after a first call): every byte of both arrays, and
// of guard zones around them, the same after the same call, in s, d, c, z, under every exported
// name (LP64; ILP64 _64_ and 64_; the wheels' scipy_?copy_, scipy_?copy_64_, scipy_cblas_?copy,
// scipy_cblas_?copy64_, whose CPU runs are the stand-in library of tests/fuzz/shim.cpp over
// that same library's routines), for n -1, 0, 1, 7 and long,
// positive, negative and zero increments, unaligned arrays, x and y overlapping, from several
// threads at once, and in a child of fork() after the copy threads started.
//
// Options: --expect-threads (the run's settings send long strided copies to the copy threads:
// the process must have started them), --expect-no-threads (it must not have: CPU mode, or
// thresholds no case reaches).
#include <dlfcn.h>
#include <link.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <string>
#include <thread>
#include <vector>

#include "tests/harness/gpu.h"

namespace {

using Fn32 = void (*)(const int *, const void *, const int *, void *, const int *);
using Fn64 = void (*)(const int64_t *, const void *, const int64_t *, void *, const int64_t *);
using Cblas32 = void (*)(int, const void *, int, void *, int);
using Cblas64 = void (*)(int64_t, const void *, int64_t, void *, int64_t);

struct Precision {
  char p;
  size_t bytes;
};
const Precision kPrecisions[] = {{'s', 4}, {'d', 8}, {'c', 8}, {'z', 16}};

// The Fortran names, then the CBLAS ones (cblas_dcopy, cblas_dcopy64_, scipy_cblas_dcopy,
// scipy_cblas_dcopy64_).
enum class Names { lp64, ilp64, wheel, wheel64, cblas, cblas64, wheel_cblas, wheel_cblas64 };
const Names kNames[] = {Names::lp64,  Names::ilp64,   Names::wheel,       Names::wheel64,
                        Names::cblas, Names::cblas64, Names::wheel_cblas, Names::wheel_cblas64};
constexpr int kNameCount = 8;
bool is_cblas(Names names) { return int(names) >= int(Names::cblas); }
bool is_wide(Names names) { return int(names) % 2 == 1; }

Fn32 g_ref[4];         // the CPU library's ?copy_ by precision
Cblas32 g_cblas_ref[4];  // and its cblas_?copy (null: it has no CBLAS, those names are not tested)
void *g_cudrop[4][kNameCount];  // cudrop's entries [precision][names]
std::atomic<int> g_failures{0};

std::string symbol(char p, Names names) {
  const std::string core = std::string(1, p) + "copy_", cblas = "cblas_" + std::string(1, p) + "copy";
  switch (names) {
    case Names::lp64: return core;
    case Names::ilp64: return core + "64_";
    case Names::wheel: return "scipy_" + core;
    case Names::wheel64: return "scipy_" + core + "64_";
    case Names::cblas: return cblas;
    case Names::cblas64: return cblas + "64_";
    case Names::wheel_cblas: return "scipy_" + cblas;
    default: return "scipy_" + cblas + "64_";
  }
}

void call_cudrop(int precision, Names names, int n, const void *x, int incx, void *y, int incy) {
  void *fn = g_cudrop[precision][int(names)];
  const int64_t n64 = n, incx64 = incx, incy64 = incy;
  if (is_cblas(names) && is_wide(names)) reinterpret_cast<Cblas64>(fn)(n64, x, incx64, y, incy64);
  else if (is_cblas(names)) reinterpret_cast<Cblas32>(fn)(n, x, incx, y, incy);
  else if (is_wide(names)) reinterpret_cast<Fn64>(fn)(&n64, x, &incx64, y, &incy64);
  else reinterpret_cast<Fn32>(fn)(&n, x, &incx, y, &incy);
}

uint64_t next(uint64_t &state) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

// One call on a buffer of random bytes (NaN payloads and all): x at byte x_at, y at byte y_at
// of the same buffer (overlapping where the spans meet), both sides compared whole.
struct Case {
  int precision;
  Names names;
  int n, incx, incy;
  size_t x_at, y_at, size;
};

bool run_case(const Case &c, std::vector<unsigned char> &ref, std::vector<unsigned char> &got, uint64_t seed) {
  ref.resize(c.size);
  got.resize(c.size);
  uint64_t state = seed | 1;
  for (size_t i = 0; i < c.size; i += 8) {
    const uint64_t v = next(state);
    std::memcpy(ref.data() + i, &v, std::min<size_t>(8, c.size - i));
  }
  std::memcpy(got.data(), ref.data(), c.size);
  if (is_cblas(c.names)) g_cblas_ref[c.precision](c.n, ref.data() + c.x_at, c.incx, ref.data() + c.y_at, c.incy);
  else g_ref[c.precision](&c.n, ref.data() + c.x_at, &c.incx, ref.data() + c.y_at, &c.incy);
  call_cudrop(c.precision, c.names, c.n, got.data() + c.x_at, c.incx, got.data() + c.y_at, c.incy);
  if (std::memcmp(ref.data(), got.data(), c.size) == 0) return true;
  size_t first = 0;
  while (ref[first] == got[first]) ++first;
  if (g_failures.fetch_add(1) < 10)
    std::printf("FAIL %c: %s n=%d incx=%d incy=%d x at byte %zu, y at byte %zu: first difference at byte %zu "
                "(reference %02x, cudrop %02x)\n",
                kPrecisions[c.precision].p, symbol(kPrecisions[c.precision].p, c.names).c_str(), c.n, c.incx, c.incy, c.x_at, c.y_at, first, ref[first],
                got[first]);
  return false;
}

size_t span_bytes(int n, int inc, size_t bytes) {
  return n <= 0 ? bytes : (size_t(n - 1) * size_t(std::abs(inc)) + 1) * bytes;
}

// The cases of one precision and name: separate arrays at odd offsets (unaligned), then y
// inside x's span (overlapping, both orders).
int run_cases(int precision, Names names, uint64_t seed) {
  if (is_cblas(names) && g_cblas_ref[precision] == nullptr) return 0;
  const size_t b = kPrecisions[precision].bytes;
  std::vector<unsigned char> ref, got;
  int count = 0;
  const int small_incs[] = {1, -1, 2, -3, 0, 5};
  struct Long {
    int n, incx, incy;
  };
  const int page = int(4096 / b);  // one element a page: numpy's pattern
  const Long longs[] = {{300, 1, 1},      {300, 7, -1},    {4099, 1, 1},    {4099, 37, 1},   {4099, 1, 37},
                        {4099, -37, 2},   {4099, 2, -37},  {4099, 0, 37},   {4099, 37, 0},   {1100, 1, page},
                        {1100, page, 1},  {1100, -page, 1}, {1100, -1, -300}};
  auto one = [&](int n, int incx, int incy, bool overlap, size_t misalign) {
    const size_t sx = span_bytes(n, incx, b), sy = span_bytes(n, incy, b);
    Case c{precision, names, n, incx, incy, 0, 0, 0};
    const size_t guard = 64 + misalign;
    if (!overlap) {
      c.x_at = guard;
      c.y_at = guard + sx + 40;
      c.size = c.y_at + sy + 64;
    } else {
      // y starts inside x's span: a few elements in, either way round.
      const size_t shift = b * size_t(1 + (n > 2 ? n / 3 : 0)) ;
      const bool y_after = (seed + size_t(n) + size_t(incx)) % 2 == 0;
      c.x_at = guard + (y_after ? 0 : shift);
      c.y_at = guard + (y_after ? shift : 0);
      c.size = guard + shift + std::max(sx, sy) + 64;
    }
    run_case(c, ref, got, seed + uint64_t(count) * 7919);
    ++count;
  };
  for (int n : {-1, 0, 1, 7, 300})
    for (int incx : small_incs)
      for (int incy : small_incs) {
        one(n, incx, incy, false, 0);
        one(n, incx, incy, false, b / 2);  // elements off their natural alignment
        if (n > 1) one(n, incx, incy, true, 0);
      }
  // Every long case under the LP64 names; under the others (the same copy, another way in) a
  // gather and a scatter, which keeps the test short.
  const bool every_long = names == Names::lp64 || names == Names::cblas;
  for (const Long &l : longs) {
    if (!every_long && !(l.n == 4099 && l.incx == 37 && l.incy == 1) && !(l.n == 1100 && l.incy == page)) continue;
    one(l.n, l.incx, l.incy, false, 0);
    if (!every_long) continue;
    one(l.n, l.incx, l.incy, false, b / 2);
    one(l.n, l.incx, l.incy, true, 0);
  }
  return count;
}

int threads_now() {
  int count = 0;
  if (DIR *dir = opendir("/proc/self/task")) {
    while (dirent *e = readdir(dir)) count += e->d_name[0] != '.';
    closedir(dir);
  }
  return count;
}

// The first loaded object but libcudrop (and the stand-in) that defines `symbol`.
struct Search {
  explicit Search(const char *s) : symbol(s) {}
  const char *symbol;
  void *found = nullptr;
  std::string where;
};
int visit(dl_phdr_info *info, size_t, void *data) {
  auto *s = static_cast<Search *>(data);
  const char *name = info->dlpi_name;
  if (s->found || name == nullptr || *name == '\0' || std::strstr(name, "libcudrop")) return 0;
  if (void *handle = dlopen(name, RTLD_LAZY | RTLD_NOLOAD)) {
    if (void *fn = dlsym(handle, s->symbol)) {
      s->found = fn;
      s->where = name;
    }
    dlclose(handle);
  }
  return 0;
}
void *loaded_routine(const char *symbol) {
  Search s{symbol};
  dl_iterate_phdr(visit, &s);
  return s.found;
}
void *reference_routine(const char *name) { return loaded_routine(name); }

}  // namespace

int main(int argc, char **argv) {
  bool expect_threads = false, expect_no_threads = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--expect-threads") == 0) expect_threads = true;
    else if (std::strcmp(argv[i], "--expect-no-threads") == 0) expect_no_threads = true;
    else {
      std::fprintf(stderr, "usage: %s [--expect-threads | --expect-no-threads]\n", argv[0]);
      return 2;
    }
  }
  // The stand-in for the wheels' and the ILP64 library (their ?copy_ the reference's), loaded
  // where cudrop finds such libraries: among the process's objects.
  void *shim = dlopen(COPY_SHIM, RTLD_NOW | RTLD_LOCAL);
  if (shim == nullptr) {
    std::printf("copy_test: cannot load the stand-in %s: %s\n", COPY_SHIM, dlerror());
    return 2;
  }
  reinterpret_cast<void (*)(void *(*)(const char *))>(dlsym(shim, "fuzz_shim_bind"))(&reference_routine);
  Dl_info info{};
  if (dladdr(dlsym(RTLD_DEFAULT, "cudrop_version"), &info) == 0 || info.dli_fname == nullptr) return 2;
  void *cudrop = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  for (int p = 0; p < 4; ++p)
    for (Names names : kNames) {
      const std::string name = symbol(kPrecisions[p].p, names);
      g_cudrop[p][int(names)] = cudrop ? dlsym(cudrop, name.c_str()) : nullptr;
      if (g_cudrop[p][int(names)] == nullptr) {
        std::printf("FAIL: %s does not export %s\n", info.dli_fname, name.c_str());
        return 1;
      }
    }

  // A copy of one element first (never split): cudrop resolves its CPU BLAS (which may start
  // threads of its own), the library its results are compared with.
  {
    double a[1] = {1}, b[1];
    const int one = 1;
    const harness::Counters before = harness::Counters::now();
    reinterpret_cast<Fn32>(g_cudrop[1][0])(&one, a, &one, b, &one);
    const harness::Counters calls = harness::Counters::now().since(before);
    if (calls.cpu != 1 || calls.gpu != 0) {
      std::printf("FAIL: one dcopy_ counted gpu %ld cpu %ld, expected one CPU call\n", calls.gpu, calls.cpu);
      ++g_failures;
    }
  }
  Search blas{"dcopy_"};
  dl_iterate_phdr(visit, &blas);
  if (blas.found == nullptr) {
    std::printf("copy_test: SKIP: no CPU BLAS loaded beside cudrop\n");
    return harness::kSkipped;
  }
  std::printf("CPU BLAS: %s\n", blas.where.c_str());
  for (int p = 0; p < 4; ++p) {
    g_ref[p] = reinterpret_cast<Fn32>(loaded_routine(symbol(kPrecisions[p].p, Names::lp64).c_str()));
    g_cblas_ref[p] = reinterpret_cast<Cblas32>(loaded_routine(symbol(kPrecisions[p].p, Names::cblas).c_str()));
    if (g_ref[p] == nullptr) {
      std::printf("copy_test: SKIP: %s has no %ccopy_\n", blas.where.c_str(), kPrecisions[p].p);
      return harness::kSkipped;
    }
    if (g_cblas_ref[p] == nullptr)
      std::printf("note: no cblas_%ccopy beside cudrop: its CBLAS names are not compared\n", kPrecisions[p].p);
  }
  const int threads_before = threads_now();

  int cases = 0;
  for (int p = 0; p < 4; ++p)
    for (Names names : kNames) cases += run_cases(p, names, 1000 + uint64_t(p) * 10 + uint64_t(names));
  const int threads_after = threads_now();
  std::printf("threads: %d before the long copies, %d after\n", threads_before, threads_after);
  if (expect_threads && threads_after <= threads_before) {
    std::printf("FAIL: no copy thread started\n");
    ++g_failures;
  }
  if (expect_no_threads && threads_after != threads_before) {
    std::printf("FAIL: %d threads started\n", threads_after - threads_before);
    ++g_failures;
  }

  // Several threads at once, each all precisions and names: the copy threads serve one caller
  // at a time, the others copy on their own.
  {
    std::vector<std::thread> callers;
    std::atomic<int> more{0};
    for (int t = 0; t < 4; ++t)
      callers.emplace_back([&, t] {
        for (int p = 0; p < 4; ++p) more += run_cases(p, kNames[(2 * p + t) % kNameCount], 5000 + uint64_t(t) * 100 + uint64_t(p));
      });
    for (std::thread &c : callers) c.join();
    cases += more;
  }

  // A child of fork() has none of the copy threads: its copies must still complete and match.
  {
    std::fflush(stdout);
    const pid_t child = fork();
    if (child == 0) {
      alarm(60);
      const int before = g_failures.load();
      for (int p = 0; p < 4; ++p) run_cases(p, Names::lp64, 9000 + uint64_t(p));
      std::fflush(stdout);
      _exit(g_failures.load() == before ? 0 : 1);
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::printf("FAIL: the child of fork() (status %d)\n", status);
      ++g_failures;
    }
    cases += 4 * 1;
  }

  std::printf("copy_test: %d cases, %d failures\n", cases, g_failures.load());
  return g_failures.load() == 0 ? 0 : 1;
}
