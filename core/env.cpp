#include "core/env.h"
#include "core/env_record.h"

#include <algorithm>
#include <climits>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <mutex>
#include <string>
#include <vector>

#include <sys/auxv.h>
#include <unistd.h>


extern char **environ;

namespace cudrop::env {
namespace {

// Names that cudrop's tests, benchmarks and netlib harness read themselves (tests/,
// bench/cudrop-bench, lapack_tests/run-netlib): set in the same environment, never a typo.
constexpr const char *kToolPrefixes[] = {"CUDROP_TEST_", "CUDROP_NETLIB_", "CUDROP_BENCH_", "CUDROP_FUZZ_"};
constexpr const char *kToolNames[] = {"CUDROP_GIT_COMMIT"};

std::mutex &warned_mutex() {
  static auto *m = new std::mutex;  // never destroyed: a late reader may warn during exit
  return *m;
}

// True the first time a name is given.
bool first_warning_for(const char *name) {
  static auto *warned = new std::vector<std::string>;
  std::lock_guard<std::mutex> lock(warned_mutex());
  if (std::find(warned->begin(), warned->end(), name) != warned->end()) return false;
  warned->emplace_back(name);
  return true;
}

// Every variable cudrop reads, as value_of is asked for it: a CUDROP_* name in the environment
// that is not among them is a typo or a setting of another version.
std::vector<const char *> &names_read() {
  static auto *names = new std::vector<const char *>;
  return *names;
}

// What each variable read gave (core/env_record.h), guarded by warned_mutex(): a warning
// found after the reading (CUDROP_DEVICE) is added to it.
std::vector<Reading> &reading_log() {
  static auto *log = new std::vector<Reading>;
  return *log;
}

// The value of a set, non-empty variable, else null; always null in a secure-execution process,
// whose environment was set by a less privileged user. (Called while the environment is read
// once, under environment()'s static initialization.)
const char *value_of(const char *name) {
  names_read().push_back(name);
  const char *value = secure_execution() ? nullptr : secure_getenv(name);
  if (value != nullptr && *value == '\0') value = nullptr;
  Reading reading;
  reading.name = name;
  reading.set = value != nullptr;
  if (value != nullptr) reading.raw = value;
  std::lock_guard<std::mutex> lock(warned_mutex());
  reading_log().push_back(std::move(reading));
  return value;
}

// The value in effect of the variable value_of read last; an invalid one was recorded by
// warn_invalid already, with the fallback's text.
void settled(const std::string &effective) {
  std::lock_guard<std::mutex> lock(warned_mutex());
  Reading &r = reading_log().back();
  if (r.source == Source::invalid) return;
  r.effective = effective;
  r.source = r.set ? Source::environment : Source::default_value;
}

// Whole text is a number (strtod syntax: "2048", "2e3", "0.5", "inf").
bool parse_number(const char *text, double *value) {
  char *end = nullptr;
  *value = std::strtod(text, &end);
  return end != text && *end == '\0' && !std::isnan(*value);
}

std::string number_text(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.15g", value);
  return text;
}

std::string range_text(const char *kind, double low, double high, bool whole) {
  std::string text = kind;
  const double unbounded = whole ? double(INT_MAX) : HUGE_VAL;
  if (high >= unbounded) return text + " >= " + number_text(low);
  return text + " from " + number_text(low) + " to " + number_text(high);
}

size_t edit_distance(const char *a, const char *b) {
  const size_t na = std::strlen(a), nb = std::strlen(b);
  std::vector<size_t> row(nb + 1);
  for (size_t j = 0; j <= nb; ++j) row[j] = j;
  for (size_t i = 1; i <= na; ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= nb; ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1] ? 1 : 0)});
      diagonal = above;
    }
  }
  return row[nb];
}

// Warns once about each CUDROP_* name in the environment that cudrop does not read (a typo
// such as CUDROP_MOD), leaving alone the names cudrop's own tests and tools set.
void warn_unknown_names() {
  for (char **entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const char *assignment = *entry;
    if (std::strncmp(assignment, "CUDROP_", 7) != 0) continue;
    const char *equals = std::strchr(assignment, '=');
    const std::string name(assignment, equals != nullptr ? size_t(equals - assignment) : std::strlen(assignment));
    bool known = false;
    for (const char *k : names_read()) known |= name == k;
    for (const char *k : kToolNames) known |= name == k;
    for (const char *prefix : kToolPrefixes) known |= name.compare(0, std::strlen(prefix), prefix) == 0;
    if (known) continue;
    const char *nearest = nullptr;
    size_t nearest_distance = 3;  // suggest only a near miss: up to two letters off
    for (const char *k : names_read()) {
      const size_t d = edit_distance(name.c_str(), k);
      if (d < nearest_distance) nearest_distance = d, nearest = k;
    }
    if (!first_warning_for(name.c_str())) continue;
    if (nearest != nullptr)
      std::fprintf(stderr, "cudrop: %s is not a cudrop setting (did you mean %s?); ignored\n", name.c_str(), nearest);
    else
      std::fprintf(stderr, "cudrop: %s is not a cudrop setting; ignored\n", name.c_str());
  }
}

}  // namespace

bool secure_execution() {
  // AT_SECURE: set by the kernel for setuid/setgid programs and file capabilities (and by LSMs);
  // glibc ignores LD_PRELOAD and LD_LIBRARY_PATH then. Where the auxiliary vector lacks it
  // (errno ENOENT), the ids tell the setuid/setgid cases.
  static const bool secure = [] {
    errno = 0;
    const unsigned long at_secure = getauxval(AT_SECURE);
    if (at_secure != 0) return true;
    if (errno == ENOENT) return getuid() != geteuid() || getgid() != getegid();
    return false;
  }();
  return secure;
}

bool is_library_name(const char *text) {
  if (text == nullptr || *text == '\0') return false;
  if (text[0] == '/') return true;
  return std::strchr(text, '/') == nullptr && std::strcmp(text, ".") != 0 && std::strcmp(text, "..") != 0;
}

void warn_invalid(const char *name, const char *value, const char *expected, const char *instead) {
  {
    std::lock_guard<std::mutex> lock(warned_mutex());
    for (Reading &r : reading_log()) {
      if (r.name != name) continue;
      r.source = Source::invalid;
      r.effective = instead;
      r.warning = r.name + "=" + value + " is not " + expected + "; using " + instead;
    }
  }
  if (!first_warning_for(name)) return;
  std::fprintf(stderr, "cudrop: %s=%s is not %s; using %s\n", name, value, expected, instead);
}

std::vector<Reading> readings() {
  environment();
  std::lock_guard<std::mutex> lock(warned_mutex());
  return reading_log();
}

const char *source_name(Source source) {
  switch (source) {
    case Source::environment: return "environment";
    case Source::invalid: return "default (invalid value)";
    default: return "default";
  }
}

namespace {

// Each reader: the variable's value when set and understood; else the fallback, with a
// warning when it was set. default_text describes the fallback where a number would not.
double number(const char *name, double fallback, double low, double high, const char *default_text = nullptr) {
  const char *text = value_of(name);
  double value = 0;
  if (text != nullptr && parse_number(text, &value) && value >= low && value <= high) {
    settled(number_text(value));
    return value;
  }
  const std::string fallback_text = default_text != nullptr ? default_text : number_text(fallback);
  if (text != nullptr) warn_invalid(name, text, range_text("a number", low, high, false).c_str(), fallback_text.c_str());
  settled(fallback_text);
  return fallback;
}

long whole_number(const char *name, long fallback, long low, long high, const char *default_text = nullptr,
                  long multiple_of = 1) {
  const char *text = value_of(name);
  double value = 0;
  if (text != nullptr && parse_number(text, &value) && value == std::floor(value) && value >= double(low) &&
      value <= double(high) && static_cast<long>(value) % multiple_of == 0) {
    settled(number_text(value));
    return static_cast<long>(value);
  }
  const std::string fallback_text = default_text != nullptr ? default_text : number_text(double(fallback));
  if (text != nullptr) {
    const std::string kind = multiple_of > 1 ? "a multiple of " + std::to_string(multiple_of) : "a whole number";
    const std::string expected = range_text(kind.c_str(), double(low), double(high), true);
    warn_invalid(name, text, expected.c_str(), fallback_text.c_str());
  }
  settled(fallback_text);
  return fallback;
}

// The index of the word given (case-insensitive), else `fallback` (an index, or -1 for none of
// them, which default_text then describes).
int word(const char *name, std::initializer_list<const char *> words, int fallback,
         const char *default_text = nullptr) {
  const char *text = value_of(name);
  const char *instead = default_text != nullptr ? default_text : fallback >= 0 ? words.begin()[fallback] : "none";
  if (text == nullptr) {
    settled(instead);
    return fallback;
  }
  int index = 0;
  for (const char *w : words) {
    if (strcasecmp(text, w) == 0) {
      settled(w);
      return index;
    }
    ++index;
  }
  std::string expected;  // "a, b or c"
  index = 0;
  for (const char *w : words) {
    if (index > 0) expected += index + 1 == static_cast<int>(words.size()) ? " or " : ", ";
    expected += w;
    ++index;
  }
  warn_invalid(name, text, expected.c_str(), instead);
  return fallback;
}

bool flag(const char *name, bool fallback) {
  const char *text = value_of(name);
  bool value = fallback;
  if (text != nullptr && std::strcmp(text, "0") == 0) value = false;
  else if (text != nullptr && std::strcmp(text, "1") == 0) value = true;
  else if (text != nullptr) warn_invalid(name, text, "0 or 1", fallback ? "1" : "0");
  settled(value ? "1" : "0");
  return value;
}

size_t byte_size(const char *name, size_t fallback, const char *default_text) {
  const char *text = value_of(name);
  size_t bytes = 0;
  if (text != nullptr && parse_byte_size(text, &bytes)) {
    settled(std::to_string(bytes) + " bytes");
    return bytes;
  }
  if (text != nullptr) warn_invalid(name, text, "a byte count (e.g. 65536, 300M, 2G)", default_text);
  settled(default_text);
  return fallback;
}

// CUDROP_CPU_BLAS / CUDROP_CPU_LAPACK: a library cudrop will dlopen, so never one found through
// a relative path (the current directory, whoever chose it): an absolute path, or a bare file
// name ("libopenblas.so.0") that the dynamic loader looks up in the process's library path.
const char *library_name(const char *name) {
  const char *instead = "the library loaded in the process, else the search list";
  const char *text = value_of(name);
  if (text == nullptr) {
    settled(std::string("none: ") + instead);
    return nullptr;
  }
  if (!is_library_name(text)) {
    warn_invalid(name, text, "an absolute path or a library's file name (e.g. libopenblas.so.0)", instead);
    return nullptr;
  }
  settled(text);
  return text;
}

// CUDROP_TEST_FAULT_INJECT=alloc|launch[:N], potrf-step:N, solve-stage:N or getrf-writeback:N,
// each with an optional @D (only on CUDA device D: one device of several failing).
void read_fault(Environment &e) {
  const char *name = "CUDROP_TEST_FAULT_INJECT";
  const char *text = value_of(name);
  if (text == nullptr) {
    settled("none");
    return;
  }
  const char *at = std::strchr(text, '@');
  const std::string spec(text, at != nullptr ? size_t(at - text) : std::strlen(text));
  const size_t colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  double from = 0, device = -1;
  const bool from_ok = colon == std::string::npos ||
                       (parse_number(spec.c_str() + colon + 1, &from) && from >= 1 && from == std::floor(from) &&
                        from <= double(LONG_MAX / 2));
  const bool device_ok = at == nullptr || (parse_number(at + 1, &device) && device >= 0 &&
                                           device == std::floor(device) && device < kMaxDevices);
  Fault fault = Fault::none;
  if (kind == "alloc") fault = Fault::alloc;
  else if (kind == "launch") fault = Fault::launch;
  else if (kind == "potrf-step" && colon != std::string::npos) fault = Fault::potrf_step;
  else if (kind == "solve-stage" && colon != std::string::npos) fault = Fault::solve_stage;
  else if (kind == "getrf-writeback" && colon != std::string::npos) fault = Fault::getrf_writeback;
  if (fault == Fault::none || !from_ok || !device_ok) {
    warn_invalid(name, text,
                 "alloc, launch, alloc:N, launch:N, potrf-step:N, solve-stage:N or getrf-writeback:N (N >= 1), "
                 "each with an optional @D",
                 "none");
    return;
  }
  e.fault = fault;
  e.fault_from = static_cast<long>(from);
  e.fault_device = static_cast<int>(device);
  settled(text);
}

// CUDROP_DEVICES=all or a list of distinct device indices ("0,1", "2, 3"). Indices beyond the
// devices there are are found only when CUDA starts (impl/gpu_context.cu warns then).
void read_devices(Environment &e) {
  const char *name = "CUDROP_DEVICES";
  const char *text = value_of(name);
  const char *fallback = "one device (CUDROP_DEVICE, else the MPI launcher's local rank, else 0)";
  if (text == nullptr) {
    settled(fallback);
    return;
  }
  if (strcasecmp(text, "all") == 0) {
    e.devices_all = true;
    settled("all");
    return;
  }
  int listed[kMaxDevices];
  int count = 0;
  bool ok = true;
  std::string effective;
  for (const char *p = text; ok;) {
    while (*p == ' ') ++p;
    char *end = nullptr;
    const long index = std::strtol(p, &end, 10);
    ok = end != p && *p != '-' && *p != '+' && index >= 0 && index < 1000000 && count < kMaxDevices;
    for (int i = 0; ok && i < count; ++i) ok = listed[i] != index;
    if (!ok) break;
    listed[count++] = static_cast<int>(index);
    effective += (effective.empty() ? "" : ",") + std::to_string(index);
    p = end;
    while (*p == ' ') ++p;
    if (*p == '\0') break;
    ok = *p == ',';
    ++p;
  }
  if (!ok) {
    warn_invalid(name, text, "all or a list of distinct device indices such as 0,1", fallback);
    return;
  }
  std::copy(listed, listed + count, e.devices);
  e.devices_listed = count;
  settled(effective);
}

Environment read_environment() {
  Environment e;
  constexpr Mode kModes[] = {Mode::Auto, Mode::Gpu, Mode::Cpu};
  e.mode = kModes[word("CUDROP_MODE", {"auto", "gpu", "cpu"}, 0)];
  e.verbose = static_cast<int>(whole_number("CUDROP_VERBOSE", 0, 0, INT_MAX));
  e.gemm_min_flops = number("CUDROP_GEMM_MIN_FLOPS", e.gemm_min_flops, 0, HUGE_VAL);
  e.gemm_min_intensity = number("CUDROP_GEMM_MIN_INTENSITY", e.gemm_min_intensity, 0, HUGE_VAL);
  e.gemm_device_min_flops = number("CUDROP_GEMM_DEVICE_MIN_FLOPS", e.gemm_device_min_flops, 0, HUGE_VAL);
  e.getrf_min_n = static_cast<int>(whole_number("CUDROP_GETRF_MIN_N", e.getrf_min_n, 0, INT_MAX));
  e.potrf_min_n = static_cast<int>(whole_number("CUDROP_POTRF_MIN_N", e.potrf_min_n, 0, INT_MAX));
  e.symm_min_flops = number("CUDROP_SYMM_MIN_FLOPS", e.symm_min_flops, 0, HUGE_VAL);
  e.syrk_min_flops = number("CUDROP_SYRK_MIN_FLOPS", e.syrk_min_flops, 0, HUGE_VAL);
  e.syr2k_min_flops = number("CUDROP_SYR2K_MIN_FLOPS", e.syr2k_min_flops, 0, HUGE_VAL);
  e.trmm_min_flops = number("CUDROP_TRMM_MIN_FLOPS", e.trmm_min_flops, 0, HUGE_VAL);
  e.trsm_min_flops = number("CUDROP_TRSM_MIN_FLOPS", e.trsm_min_flops, 0, HUGE_VAL);
  e.solve_min_flops = number("CUDROP_SOLVE_MIN_FLOPS", e.solve_min_flops, 0, HUGE_VAL);
  e.power_min_bytes = double(byte_size("CUDROP_POWER_MIN_BYTES", size_t(e.power_min_bytes), "4 MiB"));
  e.gpu_mem_limit = byte_size("CUDROP_GPU_MEM_LIMIT", 0, "no limit");
  e.cpu_blas = library_name("CUDROP_CPU_BLAS");
  e.cpu_lapack = library_name("CUDROP_CPU_LAPACK");
  e.no_cpu_search = flag("CUDROP_NO_CPU_SEARCH", false);
  e.device = static_cast<int>(whole_number("CUDROP_DEVICE", -1, 0, INT_MAX, "the MPI launcher's local rank, else 0"));
  read_devices(e);
  e.staging_bytes = size_t(whole_number("CUDROP_STAGING_MB", tuning::kStagingMiB, 1, 1 << 16)) << 20;
  e.copy_threads = static_cast<int>(whole_number("CUDROP_COPY_THREADS", 0, 1, 1024, "one per core, at most 16 per device"));
  e.potrf_outer = static_cast<int>(whole_number("CUDROP_POTRF_OUTER", 0, 64, 4096, "512", 64));
  e.potrf_left_cols = static_cast<int>(whole_number("CUDROP_POTRF_LEFT_COLS", -1, 0, INT_MAX, "columns by size"));
  e.potrf_strip = static_cast<int>(whole_number("CUDROP_POTRF_STRIP", 0, 1, 1 << 20, "2048"));
  e.potrf_lookahead = flag("CUDROP_POTRF_LOOKAHEAD", true);
  e.potrf_trace = static_cast<int>(whole_number("CUDROP_POTRF_TRACE", 0, 0, 3));
  e.gemm_trace = flag("CUDROP_GEMM_TRACE", false);
  e.getrf_trace = flag("CUDROP_GETRF_TRACE", false);
  e.getrf_writeback_bytes = byte_size("CUDROP_GETRF_WRITEBACK", e.getrf_writeback_bytes, "64 MiB");
  e.dmma_tile = word("CUDROP_DMMA_TILE", {"128x128", "128x64", "64x64"}, -1, "the tile chosen per shape");
  e.sgemm_3xtf32 = word("CUDROP_SGEMM", {"fp32", "3xtf32"}, 0) == 1;
  e.split_tf32_pass_k = static_cast<int>(whole_number("CUDROP_TEST_SPLIT_TF32_PASS_K", 0, 1, INT_MAX, "by workspace"));
  e.power_csr_elementwise = flag("CUDROP_TEST_POWER_CSR_ELEMENTWISE", false);
  e.power_pdl = flag("CUDROP_TEST_POWER_PDL", true);
  e.power_l2 = flag("CUDROP_TEST_POWER_L2", true);
  constexpr CsrFormat kFormats[] = {CsrFormat::stream, CsrFormat::wide};
  const int format = word("CUDROP_TEST_POWER_CSR_FORMAT", {"stream", "wide"}, -1, "the format chosen per matrix");
  if (format >= 0) e.power_csr_format = kFormats[format];
  read_fault(e);
  if (!secure_execution()) warn_unknown_names();
  return e;
}

}  // namespace

const Environment &environment() {
  static const Environment e = read_environment();
  detail::environment_read.store(&e, std::memory_order_release);
  return e;
}

}  // namespace cudrop::env

namespace cudrop::detail {
std::atomic<const env::Environment *> environment_read{nullptr};
}  // namespace cudrop::detail
