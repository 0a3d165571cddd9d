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

struct Environment {
  // Users' settings (README).
  Mode mode = Mode::Auto;                                // CUDROP_MODE
  int verbose = 0;                                       // CUDROP_VERBOSE
  // Auto mode's crossovers (their defaults and provenance: core/tuning.h).
  double gemm_min_flops = tuning::kGemmMinFlops;         // CUDROP_GEMM_MIN_FLOPS
  double gemm_min_intensity = tuning::kGemmMinIntensity; // CUDROP_GEMM_MIN_INTENSITY
  double gemm_device_min_flops = tuning::kGemmDeviceMinFlops;  // CUDROP_GEMM_DEVICE_MIN_FLOPS
  int getrf_min_n = tuning::kGetrfMinN;                  // CUDROP_GETRF_MIN_N
  int potrf_min_n = 512;                                 // CUDROP_POTRF_MIN_N
  double symm_min_flops = tuning::kSymmMinFlops;         // CUDROP_SYMM_MIN_FLOPS
  double syrk_min_flops = tuning::kSyrkMinFlops;         // CUDROP_SYRK_MIN_FLOPS
  double syr2k_min_flops = tuning::kSyr2kMinFlops;       // CUDROP_SYR2K_MIN_FLOPS
  double trmm_min_flops = tuning::kTrmmMinFlops;         // CUDROP_TRMM_MIN_FLOPS
  double trsm_min_flops = tuning::kTrsmMinFlops;         // CUDROP_TRSM_MIN_FLOPS
  double solve_min_flops = tuning::kSolveMinFlops;       // CUDROP_SOLVE_MIN_FLOPS
  double power_min_bytes = 4.0 * 1024 * 1024;            // CUDROP_POWER_MIN_BYTES
  size_t gpu_mem_limit = 0;                              // CUDROP_GPU_MEM_LIMIT (0: none)
  const char *cpu_blas = nullptr, *cpu_lapack = nullptr;  // CUDROP_CPU_BLAS / _LAPACK (paths)
  bool no_cpu_search = false;                            // CUDROP_NO_CPU_SEARCH
  int device = -1;  // CUDROP_DEVICE (-1: unset; core/device_choice.h decides)
  // CUDROP_DEVICES: "all", or the devices listed (distinct indices, the first one the device of
  // the calls that use one); neither: the one device CUDROP_DEVICE or the launcher gives.
  bool devices_all = false;
  int devices_listed = 0;
  int devices[kMaxDevices] = {};
  size_t staging_bytes = size_t(tuning::kStagingMiB) << 20;  // CUDROP_STAGING_MB
  int copy_threads = 0;                                  // CUDROP_COPY_THREADS (0: by core count)
  // Tuning knobs.
  int potrf_outer = 0;        // CUDROP_POTRF_OUTER (0: the plan's own)
  int potrf_left_cols = -1;   // CUDROP_POTRF_LEFT_COLS (-1: by size)
  int potrf_strip = 0;        // CUDROP_POTRF_STRIP (0: the plan's own)
  bool potrf_lookahead = true;  // CUDROP_POTRF_LOOKAHEAD
  int potrf_trace = 0;        // CUDROP_POTRF_TRACE
  bool gemm_trace = false;    // CUDROP_GEMM_TRACE
  bool getrf_trace = false;   // CUDROP_GETRF_TRACE
  size_t getrf_writeback_bytes = tuning::kGetrfWritebackBytes;  // CUDROP_GETRF_WRITEBACK (0: none early)
  int dmma_tile = -1;         // CUDROP_DMMA_TILE: 0 128x128, 1 128x64, 2 64x64 (-1: by shape)
  // CUDROP_SGEMM=3xtf32: single-precision products on the TF32 tensor cores, split for FP32
  // accuracy (impl/gemm_split_tf32.h), where the device has them; fp32 (default): FP32 pipes.
  bool sgemm_3xtf32 = false;
  // Test hooks.
  bool power_csr_elementwise = false;           // CUDROP_TEST_POWER_CSR_ELEMENTWISE
  int split_tf32_pass_k = 0;                    // CUDROP_TEST_SPLIT_TF32_PASS_K (0: by workspace)
  bool power_pdl = true;                        // CUDROP_TEST_POWER_PDL
  bool power_l2 = true;                         // CUDROP_TEST_POWER_L2
  CsrFormat power_csr_format = CsrFormat::chosen;  // CUDROP_TEST_POWER_CSR_FORMAT
  Fault fault = Fault::none;                    // CUDROP_TEST_FAULT_INJECT=kind[:N]
  long fault_from = 0;                          // N (0: every attempt)
  int fault_device = -1;                        // @D: only on CUDA device D (-1: every device)
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
