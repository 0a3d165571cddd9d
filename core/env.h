#pragma once
// The one reader of cudrop's CUDROP_* environment variables (none in a secure-execution process:
// secure_execution() below). All of them are read and checked together, once, at the first
// use of any (the first call into cudrop): an unset or empty
// variable gives its default silently; a value cudrop does not understand gives the default
// too, with one warning on stderr whatever CUDROP_VERBOSE says ("cudrop: CUDROP_MODE=fast is
// not auto, gpu or cpu; using auto"), since a setting that silently does nothing misleads.
// A CUDROP_* name cudrop does not read at all (a typo) is warned about then as well.
#include <atomic>
#include <cstddef>
#include <cstdlib>

#include "core/tuning.h"

namespace cudrop {

enum class Mode { Auto, Gpu, Cpu };

namespace env {

enum class CsrFormat { chosen, stream, wide };
enum class Fault { none, alloc, launch, potrf_step, solve_stage, getrf_writeback };

// The most devices CUDROP_DEVICES may list.
constexpr int kMaxDevices = 64;

// CUDROP_DEVICES: "all", or the devices listed (distinct indices, the first one the device of
// the calls that use one); neither: the one device CUDROP_DEVICE or the launcher gives.
struct DeviceList {
  bool all = false;
  int listed = 0;
  int index[kMaxDevices] = {};
};

// CUDROP_TEST_FAULT_INJECT=kind[:N][@D].
struct FaultInjection {
  Fault kind = Fault::none;
  long from = 0;    // N (0: every attempt)
  int device = -1;  // D: only on CUDA device D (-1: every device)
};

// Every setting, a field each: core/settings.def's rows (name, meaning, default, what is
// accepted), in their order.
struct Environment {
#define CUDROP_SETTING(name, audience, type, field, default_value, reader, doc) type field = default_value;
#include "core/settings.def"
#undef CUDROP_SETTING
};

// The environment as read at the first use (warnings printed then). In a secure-execution
// process (secure_execution()) nothing is read: every field keeps its default.
const Environment &environment();

// True in a process the kernel runs in secure-execution mode (setuid or setgid program, file
// capabilities: AT_SECURE), whose environment comes from a less privileged user. cudrop then
// reads none of its settings, never starts CUDA and prints nothing (docs/security.md).
bool secure_execution();

// True for a library name cudrop may dlopen from a setting: an absolute path, or a bare file
// name without '/' (looked up by the dynamic loader, never relative to the current directory).
bool is_library_name(const char *text);

// "300M", "2G", "1.5GiB", "65536", "64mb": a byte count with an optional binary suffix
// (K, M, G, T = 2^10 .. 2^40; "B", "iB" after it ignored; case-insensitive). False when the
// text is not such a number.
inline bool parse_byte_size(const char *text, size_t *bytes) {
  if (text == nullptr) return false;
  char *end = nullptr;
  const double value = std::strtod(text, &end);
  if (end == text || !(value >= 0)) return false;
  double scale = 1;
  switch (*end) {
    case 'k': case 'K': scale = 1024.0; ++end; break;
    case 'm': case 'M': scale = 1024.0 * 1024; ++end; break;
    case 'g': case 'G': scale = 1024.0 * 1024 * 1024; ++end; break;
    case 't': case 'T': scale = 1024.0 * 1024 * 1024 * 1024; ++end; break;
    default: break;
  }
  if (scale > 1 && (*end == 'i' || *end == 'I')) ++end;
  if (*end == 'b' || *end == 'B') ++end;
  if (*end != '\0') return false;
  const double total = value * scale;
  if (!(total < 1.8e19)) return false;
  *bytes = static_cast<size_t>(total);
  return true;
}

// "cudrop: NAME=VALUE is not <expected>; using <instead>", once per variable: for a value that
// only turns out wrong later (CUDROP_DEVICE beyond the devices there are).
void warn_invalid(const char *name, const char *value, const char *expected, const char *instead);

}  // namespace env

namespace detail {
// The environment once read, else null: lets a hot path test it without a call (a call, even a
// cold one, makes the compiler save the caller's registers on every pass).
extern std::atomic<const env::Environment *> environment_read;
}  // namespace detail

// The settings, read from the environment once. Inline: small CPU calls read them every time.
inline const env::Environment &settings() {
  if (const env::Environment *e = detail::environment_read.load(std::memory_order_acquire)) return *e;
  return env::environment();
}

}  // namespace cudrop
