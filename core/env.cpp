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

// A row of core/settings.def, as its reader needs it.
struct Row {
  const char *name;
  Audience audience;
  const char *doc;
};

// The value of a set, non-empty variable, else null; always null in a secure-execution process,
// whose environment was set by a less privileged user. (Called while the environment is read
// once, under environment()'s static initialization.)
const char *value_of(const Row &row) {
  names_read().push_back(row.name);
  const char *value = secure_execution() ? nullptr : secure_getenv(row.name);
  if (value != nullptr && *value == '\0') value = nullptr;
  Reading reading;
  reading.name = row.name;
  reading.audience = row.audience;
  reading.doc = row.doc;
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

const char *audience_name(Audience audience) {
  switch (audience) {
    case Audience::tuning: return "tuning";
    case Audience::hook: return "hook";
    default: return "user";
  }
}

namespace {

// The arguments of each kind of reader, as core/settings.def's rows give them.
namespace reader {
struct Number {
  double low, high;
};
struct Whole {
  long low, high;
  std::string unset;  // what the default means, where its number does not say it
  long multiple_of;
};
struct Mebibytes {
  long low, high;
};
struct Bytes {
  const char *unset;
};
struct Flag {};
template <class T>
struct Words {
  std::initializer_list<const char *> words;
  std::initializer_list<T> values;  // each word's
  const char *unset;  // what the default means, where it is none of the words
};
struct LibraryName {};
struct DeviceIndices {};
struct FaultSpec {};

Number number(double low, double high) { return {low, high}; }
Whole whole(long low, long high, std::string unset = {}, long multiple_of = 1) {
  return {low, high, std::move(unset), multiple_of};
}
Mebibytes mebibytes(long low, long high) { return {low, high}; }
Bytes bytes(const char *unset = nullptr) { return {unset}; }
Flag flag() { return {}; }
template <class T>
Words<T> words(std::initializer_list<const char *> words, std::initializer_list<T> values,
               const char *unset = nullptr) {
  return {words, values, unset};
}
LibraryName library_name() { return {}; }
DeviceIndices device_list() { return {}; }
FaultSpec fault_injection() { return {}; }
}  // namespace reader

// "64 MiB" for a whole number of MiB, else "N bytes".
std::string byte_text(size_t bytes) {
  if (bytes > 0 && bytes % (size_t(1) << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

// Each reader: the variable's value when set and understood, in `field`; else `field` keeps
// its default, with a warning when the variable was set.
void read_setting(const Row &row, double &field, const reader::Number &r) {
  const char *text = value_of(row);
  double value = 0;
  if (text != nullptr && parse_number(text, &value) && value >= r.low && value <= r.high) {
    settled(number_text(value));
    field = value;
    return;
  }
  const std::string fallback_text = number_text(field);
  if (text != nullptr)
    warn_invalid(row.name, text, range_text("a number", r.low, r.high, false).c_str(), fallback_text.c_str());
  settled(fallback_text);
}

// A whole number as a long, else `fallback`.
long whole_number(const Row &row, long fallback, const reader::Whole &r) {
  const char *text = value_of(row);
  double value = 0;
  if (text != nullptr && parse_number(text, &value) && value == std::floor(value) && value >= double(r.low) &&
      value <= double(r.high) && static_cast<long>(value) % r.multiple_of == 0) {
    settled(number_text(value));
    return static_cast<long>(value);
  }
  const std::string fallback_text = !r.unset.empty() ? r.unset : number_text(double(fallback));
  if (text != nullptr) {
    const std::string kind = r.multiple_of > 1 ? "a multiple of " + std::to_string(r.multiple_of) : "a whole number";
    const std::string expected = range_text(kind.c_str(), double(r.low), double(r.high), true);
    warn_invalid(row.name, text, expected.c_str(), fallback_text.c_str());
  }
  settled(fallback_text);
  return fallback;
}

void read_setting(const Row &row, int &field, const reader::Whole &r) {
  field = static_cast<int>(whole_number(row, field, r));
}

void read_setting(const Row &row, size_t &field, const reader::Mebibytes &r) {
  field = size_t(whole_number(row, long(field >> 20), {r.low, r.high, {}, 1})) << 20;
}

// The index of the word given (case-insensitive) in `field`, as its value.
template <class T>
void read_setting(const Row &row, T &field, const reader::Words<T> &r) {
  const char *text = value_of(row);
  const char *instead = r.unset != nullptr ? r.unset : "none";
  for (size_t i = 0; r.unset == nullptr && i < r.values.size(); ++i)
    if (r.values.begin()[i] == field) instead = r.words.begin()[i];
  if (text == nullptr) {
    settled(instead);
    return;
  }
  for (size_t i = 0; i < r.words.size(); ++i) {
    if (strcasecmp(text, r.words.begin()[i]) == 0) {
      settled(r.words.begin()[i]);
      field = r.values.begin()[i];
      return;
    }
  }
  std::string expected;  // "a, b or c"
  for (size_t i = 0; i < r.words.size(); ++i) {
    if (i > 0) expected += i + 1 == r.words.size() ? " or " : ", ";
    expected += r.words.begin()[i];
  }
  warn_invalid(row.name, text, expected.c_str(), instead);
}

void read_setting(const Row &row, bool &field, reader::Flag) {
  const char *text = value_of(row);
  if (text != nullptr && std::strcmp(text, "0") == 0) field = false;
  else if (text != nullptr && std::strcmp(text, "1") == 0) field = true;
  else if (text != nullptr) warn_invalid(row.name, text, "0 or 1", field ? "1" : "0");
  settled(field ? "1" : "0");
}

template <class T>
void read_setting(const Row &row, T &field, const reader::Bytes &r) {
  const char *text = value_of(row);
  size_t bytes = 0;
  if (text != nullptr && parse_byte_size(text, &bytes)) {
    settled(std::to_string(bytes) + " bytes");
    field = static_cast<T>(bytes);
    return;
  }
  const std::string default_text = r.unset != nullptr ? r.unset : byte_text(size_t(field));
  if (text != nullptr) warn_invalid(row.name, text, "a byte count (e.g. 65536, 300M, 2G)", default_text.c_str());
  settled(default_text);
}

// CUDROP_CPU_BLAS / CUDROP_CPU_LAPACK: a library cudrop will dlopen, so never one found through
// a relative path (the current directory, whoever chose it): an absolute path, or a bare file
// name ("libopenblas.so.0") that the dynamic loader looks up in the process's library path.
void read_setting(const Row &row, const char *&field, reader::LibraryName) {
  const char *instead = "the library loaded in the process, else the search list";
  const char *text = value_of(row);
  if (text == nullptr) {
    settled(std::string("none: ") + instead);
    return;
  }
  if (!is_library_name(text)) {
    warn_invalid(row.name, text, "an absolute path or a library's file name (e.g. libopenblas.so.0)", instead);
    return;
  }
  // Said now, not when the library would be opened: a preloaded cudrop takes the program's own
  // library first and might never open it. (A bare name is looked up only when it is needed.)
  if (text[0] == '/' && access(text, F_OK) != 0) {
    warn_invalid(row.name, text, "a library that can be loaded (no such file)", instead);
    return;
  }
  settled(text);
  field = text;
}

// CUDROP_TEST_FAULT_INJECT=alloc|launch[:N], potrf-step:N, solve-stage:N or getrf-writeback:N,
// each with an optional @D (only on CUDA device D: one device of several failing).
void read_setting(const Row &row, FaultInjection &field, reader::FaultSpec) {
  const char *text = value_of(row);
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
    warn_invalid(row.name, text,
                 "alloc, launch, alloc:N, launch:N, potrf-step:N, solve-stage:N or getrf-writeback:N (N >= 1), "
                 "each with an optional @D",
                 "none");
    return;
  }
  field.kind = fault;
  field.from = static_cast<long>(from);
  field.device = static_cast<int>(device);
  settled(text);
}

// CUDROP_DEVICES=all or a list of distinct device indices ("0,1", "2, 3"). Indices beyond the
// devices there are are found only when CUDA starts (impl/context/gpu_context.cu warns then).
void read_setting(const Row &row, DeviceList &field, reader::DeviceIndices) {
  const char *text = value_of(row);
  const char *fallback = "one device (CUDROP_DEVICE, else the MPI launcher's local rank, else 0)";
  if (text == nullptr) {
    settled(fallback);
    return;
  }
  if (strcasecmp(text, "all") == 0) {
    field.all = true;
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
    warn_invalid(row.name, text, "all or a list of distinct device indices such as 0,1", fallback);
    return;
  }
  std::copy(listed, listed + count, field.index);
  field.listed = count;
  settled(effective);
}

// Every row of core/settings.def read into its field, in the table's order.
Environment read_environment() {
  Environment e;
  using namespace reader;
#define CUDROP_SETTING(name, audience, type, field, default_value, reader, doc) \
  read_setting(Row{#name, Audience::audience, doc}, e.field, reader);
#include "core/settings.def"
#undef CUDROP_SETTING
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
