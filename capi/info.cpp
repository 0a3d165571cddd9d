// cudrop's own exported queries (routines.def rows of entry `own`).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/env.h"
#include "core/env_record.h"
#include "core/routines.h"
#include "impl/context/gpu.h"
#include "impl/context/gpu_description.h"
#include "cpu/origin.h"
#include "route/dispatch.h"

#include "cudrop.h"  // the declarations, checked against the definitions

#ifndef CUDROP_CUDA_ARCHITECTURES
#define CUDROP_CUDA_ARCHITECTURES "unknown"
#endif

CUDROP_EXPORT const char *cudrop_version(void) { return CUDROP_VERSION_STRING; }

// Starting CUDA builds strings and may throw (std::bad_alloc): no exception crosses the entry.
CUDROP_EXPORT int cudrop_gpu_available(void) {
  try {
    return cudrop::impl::gpu_usable() ? 1 : 0;
  } catch (...) {
    return 0;
  }
}

CUDROP_EXPORT void cudrop_counters(long *gpu_calls, long *cpu_calls, long *gpu_fallbacks) {
  cudrop::counters(gpu_calls, cpu_calls, gpu_fallbacks);
}

namespace {

using cudrop::env::Reading;

std::string version_text(int version) {  // 12040 -> "12.4"
  if (version <= 0) return "none";
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string json_string(const std::string &text) {
  std::string out = "\"";
  for (const unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}

std::string number(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.15g", value);
  return text;
}

// The auto-mode crossovers: every setting of core/settings.def named CUDROP_*_MIN_*, its value
// in effect and its doc line (what it decides), so that a new threshold row is listed by itself.
struct Threshold {
  std::string name;
  double value;
  const char *rule;
};

std::vector<Threshold> thresholds(const std::vector<Reading> &settings) {
  std::vector<Threshold> list;
  for (const Reading &r : settings)
    if (r.name.find("_MIN_") != std::string::npos)  // the effective text starts with the number
      list.push_back({r.name, std::strtod(r.effective.c_str(), nullptr), r.doc});
  return list;
}

// "0,1": the devices in use, as CUDROP_DEVICES lists them.
std::string device_list(const std::vector<int> &devices) {
  std::string text;
  for (int d : devices) text += (text.empty() ? "" : ",") + std::to_string(d);
  return text;
}

// The CPU libraries underneath, one line per library of each kind (BLAS, LAPACK, each with
// 64-bit integers), from the routines found: a library the process has loaded, one named, one
// of the search list. The ILP64 kinds only where found: only programs calling the _64_ routines
// need them.
std::string cpu_libraries(const std::vector<cudrop::cpu::Origin> &cpu) {
  std::string out;
  char line[512];
  bool any_ilp64 = false;
  for (const bool ilp64 : {false, true}) {
    for (const bool lapack : {false, true}) {
      const std::string kind = std::string(lapack ? "LAPACK" : "BLAS") + (ilp64 ? " (ILP64)" : "");
      std::vector<std::string> told;  // "library (rule)"
      int missing = 0;
      for (const cudrop::cpu::Origin &o : cpu) {
        if (o.lapack != lapack || o.ilp64 != ilp64) continue;
        if (o.library.empty()) {
          ++missing;
          continue;
        }
        const std::string text = o.library + " (" + o.rule + ")";
        if (std::find(told.begin(), told.end(), text) != told.end()) continue;
        told.push_back(text);
        std::snprintf(line, sizeof line, "  %-16s %s\n", kind.c_str(), text.c_str());
        out += line;
      }
      any_ilp64 |= ilp64 && !told.empty();
      if (ilp64 && told.empty()) continue;
      if (told.empty())
        std::snprintf(line, sizeof line, "  %-16s not found: a call that needs it aborts, saying what to install\n",
                      kind.c_str());
      else if (missing > 0)
        std::snprintf(line, sizeof line, "  %-16s %d routine%s not found there (--all lists them)\n", kind.c_str(),
                      missing, missing > 1 ? "s" : "");
      else
        continue;
      out += line;
    }
  }
  if (!any_ilp64) out += "  ILP64            none found (only calls to the _64_ routines, dgemm_64_ ..., need one)\n";
  return out;
}

// all: each CPU routine, every setting and the auto-mode thresholds; else the CPU libraries and
// the users' settings, with any other one that is set.
std::string plain(const cudrop::impl::GpuDescription &gpu, const std::vector<cudrop::cpu::Origin> &cpu,
                  const std::vector<Reading> &settings, bool all) {
  std::string out;
  char line[512];
  out += std::string("cudrop ") + CUDROP_VERSION_STRING + "\n";
  out += std::string("build: CUDA architectures ") + CUDROP_CUDA_ARCHITECTURES + ", CUDA runtime " +
         version_text(gpu.runtime_version) + "\n";
  out += "GPU:\n";
  if (gpu.usable) {
    std::snprintf(line, sizeof line,
                  "  GPU %d of %d: %s, %.1f GiB, compute capability %d.%d, driver for CUDA %s\n"
                  "  chosen by: %s\n",
                  gpu.device, gpu.device_count, gpu.name.c_str(), gpu.memory_bytes / double(1 << 30), gpu.cc_major,
                  gpu.cc_minor, version_text(gpu.driver_version).c_str(), gpu.rule.c_str());
    out += line;
    if (gpu.devices.size() > 1) out += "  devices in use: " + device_list(gpu.devices) + " (GEMM split over them)\n";
  } else {
    out += "  no usable GPU: " + gpu.reason + "\n";
  }
  out += "CPU BLAS/LAPACK underneath:\n";
  if (!all) out += cpu_libraries(cpu);
  for (const cudrop::cpu::Origin &o : all ? cpu : std::vector<cudrop::cpu::Origin>{}) {
    std::snprintf(line, sizeof line, "  %-8s %s (%s)\n", o.symbol.c_str(),
                  o.library.empty() ? "not found" : o.library.c_str(), o.how.c_str());
    out += line;
  }
  out += all ? "settings:\n" : "settings (cudrop(7)):\n";
  for (const Reading &r : settings) {
    if (!all && r.audience != cudrop::env::Audience::user && !r.set) continue;
    std::string value = r.effective;
    if (r.source == cudrop::env::Source::environment && r.raw != r.effective) value = r.raw + " -> " + r.effective;
    std::snprintf(line, sizeof line, "  %-34s %-24s %s\n", r.name.c_str(), value.c_str(),
                  cudrop::env::source_name(r.source));
    out += line;
    if (!r.warning.empty()) out += "    warning: " + r.warning + "\n";
  }
  if (!all)
    return out + "cudrop-info --all: each CPU routine, the tuning knobs and test hooks (docs/tuning.md), the "
                 "auto-mode thresholds\n";
  out += "auto mode (CUDROP_MODE=auto) runs a call on the GPU when:\n";
  for (const Threshold &t : thresholds(settings)) {
    std::snprintf(line, sizeof line, "  %-34s %-12s %s\n", t.name.c_str(), number(t.value).c_str(), t.rule);
    out += line;
  }
  return out;
}

std::string json(const cudrop::impl::GpuDescription &gpu, const std::vector<cudrop::cpu::Origin> &cpu,
                 const std::vector<Reading> &settings) {
  std::string out = "{\n";
  out += "  \"version\": " + json_string(CUDROP_VERSION_STRING) + ",\n";
  out += "  \"build\": {\"cuda_architectures\": " + json_string(CUDROP_CUDA_ARCHITECTURES) +
         ", \"cuda_runtime\": " + json_string(version_text(gpu.runtime_version)) + "},\n";
  out += "  \"gpu\": {\"usable\": " + std::string(gpu.usable ? "true" : "false");
  if (gpu.usable) {
    out += ", \"device\": " + std::to_string(gpu.device) + ", \"device_count\": " +
           std::to_string(gpu.device_count) + ", \"name\": " + json_string(gpu.name) +
           ", \"memory_bytes\": " + std::to_string(gpu.memory_bytes) + ", \"compute_capability\": " +
           json_string(std::to_string(gpu.cc_major) + "." + std::to_string(gpu.cc_minor)) +
           ", \"driver_cuda_version\": " + json_string(version_text(gpu.driver_version)) +
           ", \"chosen_by\": " + json_string(gpu.rule) + ", \"devices\": [" + device_list(gpu.devices) + "]";
  } else {
    out += ", \"reason\": " + json_string(gpu.reason);
  }
  out += "},\n  \"cpu\": [";
  for (size_t i = 0; i < cpu.size(); ++i) {
    const cudrop::cpu::Origin &o = cpu[i];
    out += std::string(i ? ",\n" : "\n") + "    {\"symbol\": " + json_string(o.symbol) + ", \"library\": " +
           (o.library.empty() ? std::string("null") : json_string(o.library)) + ", \"how\": " + json_string(o.how) +
           "}";
  }
  out += "\n  ],\n  \"settings\": [";
  for (size_t i = 0; i < settings.size(); ++i) {
    const Reading &r = settings[i];
    out += std::string(i ? ",\n" : "\n") + "    {\"name\": " + json_string(r.name) + ", \"value\": " +
           (r.set ? json_string(r.raw) : std::string("null")) + ", \"effective\": " + json_string(r.effective) +
           ", \"source\": " + json_string(cudrop::env::source_name(r.source)) +
           ", \"audience\": " + json_string(cudrop::env::audience_name(r.audience)) + ", \"doc\": " + json_string(r.doc);
    if (!r.warning.empty()) out += ", \"warning\": " + json_string(r.warning);
    out += "}";
  }
  out += "\n  ],\n  \"auto_thresholds\": {";
  const std::vector<Threshold> list = thresholds(settings);
  for (size_t i = 0; i < list.size(); ++i)
    out += std::string(i ? ", " : "") + json_string(list[i].name) + ": " + number(list[i].value);
  return out + "}\n}\n";
}

}  // namespace

// Everything cudrop-info prints (form: include/cudrop.h's CUDROP_INFO_*); the text is built
// whole, then copied as snprintf would.
CUDROP_EXPORT size_t cudrop_info(char *buffer, size_t size, int form) {
  const bool as_json = form == CUDROP_INFO_JSON;
  std::string text;
  const char *failed = nullptr;
  try {
    // The GPU first: a CUDROP_DEVICE beyond the devices there are warns while CUDA starts.
    const cudrop::impl::GpuDescription gpu = cudrop::impl::describe_gpu();
    const std::vector<cudrop::cpu::Origin> cpu = cudrop::cpu::origins();
    const std::vector<Reading> settings = cudrop::env::readings();
    text = as_json ? json(gpu, cpu, settings) : plain(gpu, cpu, settings, form == CUDROP_INFO_ALL);
  } catch (...) {
    failed = as_json ? "{\"error\": \"out of memory\"}\n" : "cudrop: out of memory\n";
  }
  const char *data = failed != nullptr ? failed : text.c_str();
  const size_t length = failed != nullptr ? std::strlen(failed) : text.size();
  if (buffer != nullptr && size > 0) {
    const size_t n = length < size - 1 ? length : size - 1;
    std::memcpy(buffer, data, n);
    buffer[n] = '\0';
  }
  return length;
}
