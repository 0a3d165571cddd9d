#include "impl/context/gpu_context.cuh"

#include <dlfcn.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <algorithm>
#include <chrono>
#include <new>

#include <pthread.h>

#include "core/device_choice.h"
#include "core/env.h"
#include "core/log.h"
#include "core/layout.h"
#include "impl/context/device_info.h"
#include "impl/context/gpu_description.h"
#include "impl/context/staging.h"

namespace cudrop::impl {
namespace {

struct Gpu {
  std::once_flag started;
  std::atomic<bool> usable{false};
  std::string unusable_reason = "not started";
  std::mutex call_mutex;
  GpuContext context;
  std::atomic<bool> cuda_touched{false};  // start() or the driver's warm-up has called into CUDA
  std::atomic<bool> start_done{false};    // start() has returned (gpu_usable() no longer waits)
  bool forked_after_cuda = false;         // this process is a child of fork() whose parent had touched CUDA
  int device_count = 0;
  std::string device_rule;  // why ctx.device (core/device_choice.h)
  // The other devices CUDROP_DEVICES gives, and their contexts once started (under the lease,
  // by the first call that wants several devices); those that could not start are left out.
  std::vector<int> other_devices;
  std::once_flag others_started;
  std::vector<GpuContext *> others;
  std::atomic<bool> others_ready{false};  // `others` complete (check() reads it without the lease)
  int copy_threads_total = 0;  // shared out among the devices of a call on several
};

Gpu *the_gpu = nullptr;

// A child of fork() cannot use the CUDA context its parent made, and must not wait on a lock
// that a thread of the parent held: once CUDA was started, the child runs everything on the
// CPU. (A parent that never touched CUDA leaves the child free to start it.)
void forget_gpu_in_child() {
  Gpu &g = *the_gpu;
  if (!g.cuda_touched.load()) return;
  new (&g.call_mutex) std::mutex;
  g.usable.store(false);
  g.unusable_reason = "a child of fork() cannot use its parent's CUDA context";
  // A start that the parent had not finished must not run here (CUDA cannot start again in a
  // child), nor be waited for (its thread is not in the child).
  g.forked_after_cuda = true;
  if (!g.start_done.load()) new (&g.started) std::once_flag;
}

Gpu &gpu() {
  static Gpu *g = [] {
    the_gpu = new Gpu;  // never destroyed: the CUDA runtime tears itself down at exit
    pthread_atfork(nullptr, nullptr, forget_gpu_in_child);
    return the_gpu;
  }();
  return *g;
}

std::string version_text(int version) {  // 12040 -> "12.4"
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

// Why the driver cannot start the runtime, in the user's terms; empty when it can. The driver
// library is looked for before the runtime is touched: without one, cudart only says "CUDA
// driver version is insufficient for CUDA runtime version".
std::string driver_problem(int *count) {
  void *libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);  // kept open: cudart uses it too
  if (libcuda == nullptr) {
    const char *why = dlerror();
    if (why == nullptr || std::strstr(why, "No such file") != nullptr)
      return "no NVIDIA driver installed: libcuda.so.1 not found";
    return std::string("the NVIDIA driver cannot be loaded: ") + why;
  }
  const cudaError_t error = cudaGetDeviceCount(count);
  if (error == cudaSuccess && *count > 0) return {};
  cudaGetLastError();
  if (error == cudaErrorInsufficientDriver) {
    using GetVersion = int (*)(int *);
    auto driver_version = reinterpret_cast<GetVersion>(dlsym(libcuda, "cuDriverGetVersion"));
    int driver = 0, runtime = 0;
    cudaRuntimeGetVersion(&runtime);
    std::string text = "the NVIDIA driver is older than cudrop's CUDA runtime";
    if (driver_version != nullptr && driver_version(&driver) == 0 && driver > 0)
      text += " (driver for CUDA " + version_text(driver) + ", runtime CUDA " + version_text(runtime) + ")";
    return text;
  }
  if (error == cudaErrorNoDevice || error == cudaSuccess) {
    const char *visible = secure_getenv("CUDA_VISIBLE_DEVICES");  // CUDA's variable, not one of cudrop's
    return visible != nullptr ? std::string("no CUDA device (CUDA_VISIBLE_DEVICES=") + visible + ")"
                              : std::string("no CUDA device");
  }
  return std::string("the NVIDIA driver cannot be used: ") + cudaGetErrorString(error);
}

// Why the chosen device cannot hold cudrop's context, from the error of a set-up step.
std::string device_problem(int device, const char *step, cudaError_t error) {
  const std::string gpu = "GPU " + std::to_string(device);
  switch (error) {
    case cudaErrorMemoryAllocation:
      return gpu + " cannot be used: out of memory (" + step + ")";
    case cudaErrorDevicesUnavailable:
      return gpu + " cannot be used: busy (exclusive compute mode, held by another process)";
    default:
      return gpu + " cannot be used: " + step + ": " + cudaGetErrorString(error);
  }
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Streams, events and pinned staging buffers of one device's context, `copier` its host copy
// threads; on return the calling thread's current device is `device`. Empty, else why the
// device cannot be used.
std::string start_context(GpuContext &ctx, int device, size_t staging_bytes, CopyPool *copier,
                          double *pinning_seconds = nullptr) {
  ctx.device = device;
  ctx.staging_bytes = staging_bytes;
  ctx.copier = copier;
  const char *step = "cudaSetDevice";
  cudaError_t error = cudaSetDevice(ctx.device);
  if (error == cudaSuccess) {
    step = "stream creation";
    error = cudaStreamCreateWithFlags(&ctx.stream, cudaStreamNonBlocking);
  }
  if (error == cudaSuccess) error = cudaStreamCreateWithFlags(&ctx.compute, cudaStreamNonBlocking);
  if (error == cudaSuccess) {
    step = "event creation";
    error = cudaEventCreateWithFlags(&ctx.panel_ready, cudaEventDisableTiming);
  }
  for (cudaEvent_t &done : ctx.panel_done)
    if (error == cudaSuccess) error = cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
  for (cudaEvent_t &done : ctx.operand_done)
    if (error == cudaSuccess) error = cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
  const auto pinning_began = std::chrono::steady_clock::now();
  for (int i = 0; i < GpuContext::kStaging && error == cudaSuccess; ++i) {
    step = "pinned staging buffers";
    error = cudaHostAlloc(&ctx.staging[i], ctx.staging_bytes, cudaHostAllocDefault);
    if (error == cudaSuccess) error = cudaEventCreateWithFlags(&ctx.staging_free[i], cudaEventDisableTiming);
  }
  if (pinning_seconds != nullptr)
    *pinning_seconds = seconds_since(pinning_began);
  if (error == cudaSuccess) return {};
  cudaGetLastError();
  return device_problem(ctx.device, step, error);
}

// The contexts of the other devices, each with its share of the copy threads (the first
// device's share too, for the calls that run on several). Under the lease.
void start_others(Gpu &g) {
  const int devices = 1 + int(g.other_devices.size());
  const int share = std::max(1, g.copy_threads_total / devices);
  const env::Environment &e = env::environment();
  for (int device : g.other_devices) {
    auto *ctx = new GpuContext;  // never destroyed, as the first device's
    std::string problem = start_context(*ctx, device, e.staging_bytes, make_copy_pool(share));
    if (!problem.empty()) {
      log(1, "%s; the other devices go on without it", problem.c_str());
      continue;  // its streams and buffers stay allocated: a failed start is rare and once
    }
    const DeviceInfo *info = nullptr;
    if (device_info(device, &info) == cudaSuccess)
      log(1, "GPU %d (CUDROP_DEVICES, %d copy threads): %s, %d SMs, %.1f GiB", device, share, info->name, info->sms,
          info->global_bytes / double(1 << 30));
    g.others.push_back(ctx);
    // Peer access both ways with the first device, where the two can reach each other: the
    // operands a call over several reads once are forwarded from the first device's memory
    // (impl/context/shared_operand.h) directly over NVLink or PCIe instead of through the host.
    int to_first = 0, from_first = 0;
    if (device != g.context.device && cudaDeviceCanAccessPeer(&to_first, device, g.context.device) == cudaSuccess &&
        cudaDeviceCanAccessPeer(&from_first, g.context.device, device) == cudaSuccess && to_first && from_first) {
      cudaError_t error = cudaDeviceEnablePeerAccess(g.context.device, 0);  // current: `device`
      if (error == cudaSuccess || error == cudaErrorPeerAccessAlreadyEnabled) {
        cudaSetDevice(g.context.device);
        error = cudaDeviceEnablePeerAccess(device, 0);
      }
      if (error != cudaSuccess && error != cudaErrorPeerAccessAlreadyEnabled)
        log(1, "GPU %d: no peer access with GPU %d (%s); forwarded operands go through the host", device,
            g.context.device, cudaGetErrorString(error));
      cudaGetLastError();
    }
  }
  g.context.shared_copier = make_copy_pool(share);
  g.others_ready.store(true);
  cudaSetDevice(g.context.device);
  cudaGetLastError();
}

// CUDROP_DEVICES's indices as read ("0,1"), for its warnings.
std::string listed_devices(const env::Environment &e) {
  std::string value;
  for (int i = 0; i < e.devices.listed; ++i) value += (i > 0 ? "," : "") + std::to_string(e.devices.index[i]);
  return value;
}

void start(Gpu &g) {
  // A setuid/setgid or capability program runs every call on the CPU: the CUDA driver reads
  // its own variables and writes its caches under the caller's home, neither of which a less
  // privileged user may steer in a privileged process (docs/security.md).
  if (env::secure_execution()) {
    g.unusable_reason = "a secure-execution (setuid, setgid or capabilities) process: every call runs on the CPU";
    return;
  }
  if (g.forked_after_cuda) return;  // forget_gpu_in_child has said why
  g.cuda_touched.store(true);
  const env::Environment &e = env::environment();
  const auto began = std::chrono::steady_clock::now();
  int count = 0;
  std::string problem = driver_problem(&count);
  const double driver_seconds = seconds_since(began);
  if (!problem.empty()) {
    g.unusable_reason = problem;
    // Devices named on a machine where there are none: said, as any value that cannot be used.
    if (e.devices.listed > 0) {
      const std::string expected = "a list of this machine's devices (" + problem + ")";
      env::warn_invalid("CUDROP_DEVICES", listed_devices(e).c_str(), expected.c_str(), "the CPU");
    }
    return;
  }
  GpuContext &ctx = g.context;
  const env::DeviceChoice choice = env::choose_device(e.device, count, env::local_rank());
  const env::DeviceSet set = env::choose_devices(e.devices.all, e.devices.index, e.devices.listed, count, choice);
  if (!set.expected.empty())
    env::warn_invalid("CUDROP_DEVICES", listed_devices(e).c_str(), set.expected.c_str(), set.instead.c_str());
  ctx.device = set.devices[0];
  g.device_count = count;
  g.device_rule = set.rule;
  g.other_devices.assign(set.devices.begin() + 1, set.devices.end());
  // Twins: the first device again, as further devices with contexts of their own, so that the
  // paths of a call over several devices run on a machine with one.
  for (int t = 0; t < e.device_twins; ++t) g.other_devices.push_back(set.devices[0]);
  if (ctx.device >= count) {  // only CUDROP_DEVICE can name a device that is not there
    const std::string value = std::to_string(ctx.device), devices = "a device index from 0 to " + std::to_string(count - 1);
    env::warn_invalid("CUDROP_DEVICE", value.c_str(), devices.c_str(), "no GPU");
    g.unusable_reason = "CUDROP_DEVICE=" + value + ", but the machine has " + std::to_string(count) +
                        (count == 1 ? " CUDA device" : " CUDA devices");
    return;
  }
  int compute_mode = cudaComputeModeDefault;
  if (cudaDeviceGetAttribute(&compute_mode, cudaDevAttrComputeMode, ctx.device) == cudaSuccess &&
      compute_mode == cudaComputeModeProhibited) {
    g.unusable_reason = "GPU " + std::to_string(ctx.device) + " cannot be used: its compute mode is Prohibited";
    return;
  }
  cudaGetLastError();
  g.copy_threads_total = e.copy_threads > 0 ? e.copy_threads : std::min<int>(
      tuning::kCopyThreadsPerDevice * int(set.devices.size()), int(std::max(1u, std::thread::hardware_concurrency())));
  // One device keeps every copy thread (CUDROP_COPY_THREADS, else one per core up to 16).
  const int copy_threads = e.copy_threads > 0 ? e.copy_threads
                                              : std::min(tuning::kCopyThreadsPerDevice, g.copy_threads_total);
  const auto context_began = std::chrono::steady_clock::now();
  double pinning_seconds = 0;
  if (std::string problem =
          start_context(ctx, ctx.device, e.staging_bytes, make_copy_pool(copy_threads), &pinning_seconds);
      !problem.empty()) {
    g.unusable_reason = problem;
    return;
  }
  const DeviceInfo *info = nullptr;
  if (device_info(ctx.device, &info) == cudaSuccess)
    log(1, "GPU %d (%s): %s, %d SMs, %.1f GiB; started in %.3f s (driver %.3f s, context %.3f s, pinned staging %.3f s)",
        ctx.device, set.rule.c_str(), info->name, info->sms, info->global_bytes / double(1 << 30),
        seconds_since(began), driver_seconds, seconds_since(context_began) - pinning_seconds, pinning_seconds);
  g.usable.store(true);
}

}  // namespace

bool gpu_usable() {
  Gpu &g = gpu();
  if (!g.start_done.load(std::memory_order_acquire)) {
    if (g.forked_after_cuda) return false;
    std::call_once(g.started, [&] {
      start(g);
      g.start_done.store(true, std::memory_order_release);
    });
  }
  return g.usable.load();
}

// ---- The driver's start, overlapped with the process's first calls ----
// Most of CUDA's start is the driver's: cuInit and the device's primary context. A thread of
// its own does those two through the driver API while the first calls run on the CPU; the
// runtime's part (start(): streams, pinned staging) then takes the primary context that is
// already there. Only the driver, never the runtime, runs in that thread, and an exit handler
// registered before it starts waits for it: the runtime's teardown (its exit handlers) never
// meets a half-done start, and the driver's own (at unload) comes after the wait.
namespace {

struct Warm {
  std::mutex mutex;
  std::condition_variable done_cv;
  enum State { idle, running, done } state = idle;
};

Warm &warm() {
  static Warm *w = new Warm;  // never destroyed: the exit handler and the thread use it
  return *w;
}

void wait_for_warm() {
  Warm &w = warm();
  std::unique_lock<std::mutex> lock(w.mutex);
  w.done_cv.wait(lock, [&] { return w.state != Warm::running; });
}

void warm_driver(int requested_device, bool several_listed, int first_listed, env::LocalRank local_rank) {
  using Init = int (*)(unsigned);
  using Count = int (*)(int *);
  using DeviceGet = int (*)(int *, int);
  using Retain = int (*)(void **, int);
  if (void *libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {  // kept open, as driver_problem's
    auto init = reinterpret_cast<Init>(dlsym(libcuda, "cuInit"));
    auto count_devices = reinterpret_cast<Count>(dlsym(libcuda, "cuDeviceGetCount"));
    auto device_get = reinterpret_cast<DeviceGet>(dlsym(libcuda, "cuDeviceGet"));
    auto retain = reinterpret_cast<Retain>(dlsym(libcuda, "cuDevicePrimaryCtxRetain_v2"));
    if (retain == nullptr) retain = reinterpret_cast<Retain>(dlsym(libcuda, "cuDevicePrimaryCtxRetain"));
    int count = 0, device = 0;
    void *context = nullptr;
    if (init != nullptr && count_devices != nullptr && device_get != nullptr && retain != nullptr && init(0) == 0 &&
        count_devices(&count) == 0 && count > 0) {
      // The device start() will choose (core/device_choice.h); a wrong guess only warms a
      // context that start() does not take.
      int ordinal = several_listed ? first_listed : env::choose_device(requested_device, count, local_rank).device;
      if (ordinal >= 0 && ordinal < count && device_get(&device, ordinal) == 0) retain(&context, device);
    }
  }
  Warm &w = warm();
  {
    std::lock_guard<std::mutex> lock(w.mutex);
    w.state = Warm::done;
  }
  w.done_cv.notify_all();
}

}  // namespace

bool gpu_starting() {
  Gpu &g = gpu();
  if (g.start_done.load(std::memory_order_acquire) || g.forked_after_cuda) return false;
  if (env::secure_execution()) return false;  // start() says why, without touching CUDA
  Warm &w = warm();
  std::lock_guard<std::mutex> lock(w.mutex);
  if (w.state == Warm::idle) {
    // Without a driver there is nothing to overlap: start() says so at once (its notice too).
    if (dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL) == nullptr) return false;  // kept open, as driver_problem's
    const env::Environment &e = env::environment();
    const bool several = e.devices.listed > 0;
    const int first = several ? e.devices.index[0] : -1, device = e.device;
    const env::LocalRank rank = env::local_rank();
    if (std::atexit(wait_for_warm) != 0) return false;  // no handler, no thread: the call waits for start()
    g.cuda_touched.store(true);
    try {
      std::thread(warm_driver, device, several, first, rank).detach();
    } catch (...) {
      return false;  // no thread: start() does it all on the first call that wants the GPU
    }
    w.state = Warm::running;
  }
  return w.state == Warm::running;
}

const char *gpu_unusable_reason() { return gpu().unusable_reason.c_str(); }

GpuDescription describe_gpu() {
  GpuDescription d;
  d.usable = gpu_usable();
  Gpu &g = gpu();
  d.device_count = g.device_count;
  if (!g.cuda_touched.load()) {  // never started (a secure-execution process): CUDA stays untouched
    d.reason = g.unusable_reason;
    return d;
  }
  cudaDriverGetVersion(&d.driver_version);
  cudaRuntimeGetVersion(&d.runtime_version);
  cudaGetLastError();
  if (!d.usable) {
    d.reason = g.unusable_reason;
    return d;
  }
  d.device = g.context.device;
  d.rule = g.device_rule;
  d.devices.push_back(d.device);
  d.devices.insert(d.devices.end(), g.other_devices.begin(), g.other_devices.end());
  const DeviceInfo *info = nullptr;
  if (device_info(d.device, &info) == cudaSuccess) {
    d.name = info->name;
    d.memory_bytes = info->global_bytes;
    d.cc_major = info->cc_major;
    d.cc_minor = info->cc_minor;
  }
  cudaGetLastError();
  return d;
}

namespace {
thread_local bool lease_held = false;
}  // namespace

bool gpu_lease_held_here() { return lease_held; }

GpuLease::GpuLease() {
  if (!gpu_usable() || lease_held) return;
  Gpu &g = gpu();
  lock_ = std::unique_lock<std::mutex>(g.call_mutex);
  lease_held = true;
  if (!g.usable.load()) return;  // disabled by an error while we waited
  // The current device is per host thread: each caller's thread must select ours.
  if (cudaSetDevice(g.context.device) != cudaSuccess) return;
  context_ = &g.context;
}

GpuLease::~GpuLease() {
  if (lock_.owns_lock()) lease_held = false;
}

bool GpuLease::several_devices() const { return !gpu().other_devices.empty(); }

std::vector<GpuContext *> GpuLease::devices() {
  Gpu &g = gpu();
  std::call_once(g.others_started, [&] { start_others(g); });
  std::vector<GpuContext *> usable = {context_};
  for (GpuContext *ctx : g.others)
    if (!ctx->failed.load()) usable.push_back(ctx);
  return usable;
}

namespace {
thread_local GpuContext *working_on = nullptr;
std::atomic<unsigned long long> uploaded{0};
}  // namespace

Status device_context(GpuContext **out) {
  if (!gpu_usable()) return Status::no_device;
  // A thread working for one context of a call over several uses that one's priority lane.
  *out = working_on != nullptr ? working_on : &gpu().context;
  return Status::ok;
}

Status priority_lane(GpuContext &ctx) {
  static std::mutex creating;
  std::lock_guard<std::mutex> lock(creating);
  GpuContext::PriorityLane &lane = ctx.priority;
  int low = 0, high = 0;
  cudaError_t error = cudaSuccess;
  if (lane.stream == nullptr) {
    error = cudaDeviceGetStreamPriorityRange(&low, &high);
    if (error == cudaSuccess) error = cudaStreamCreateWithPriority(&lane.stream, cudaStreamNonBlocking, high);
  }
  for (cudaEvent_t *event : {&lane.start, &lane.panel_done, &lane.next_ready})
    if (error == cudaSuccess && *event == nullptr) error = cudaEventCreateWithFlags(event, cudaEventDisableTiming);
  return check(error, "priority stream");
}

WorkingOn::WorkingOn(GpuContext *ctx) : previous_(working_on) { working_on = ctx; }
WorkingOn::~WorkingOn() { working_on = previous_; }

unsigned long long uploaded_bytes() { return uploaded.load(); }

Status check(cudaError_t error, const char *what) {
  if (error == cudaSuccess) return Status::ok;
  if (error == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    log(1, "%s: %s", what, cudaGetErrorString(error));
    return Status::out_of_memory;
  }
  Gpu &g = gpu();
  // A context other than the first fails alone: the one the calling thread works for, else the
  // one of its current device.
  if (working_on != nullptr && working_on != &g.context && g.others_ready.load()) {
    working_on->failed.store(true);
    log(1, "%s failed on GPU %d (%s); that context is not used again by this process", what, working_on->device,
        cudaGetErrorString(error));
    return Status::cuda_error;
  }
  int current = -1;
  if (g.others_ready.load() && cudaGetDevice(&current) == cudaSuccess && current != g.context.device) {
    for (GpuContext *ctx : g.others) {
      if (ctx->device != current) continue;
      ctx->failed.store(true);
      log(1, "%s failed on GPU %d (%s); that GPU is not used again by this process", what, current,
          cudaGetErrorString(error));
      return Status::cuda_error;
    }
  }
  g.usable.store(false);
  g.unusable_reason = std::string(what) + ": " + cudaGetErrorString(error);
  log(1, "%s failed (%s); the GPU is not used again by this process", what, cudaGetErrorString(error));
  return Status::cuda_error;
}

bool inject_fault(const char *kind) {
  const env::Environment &e = env::environment();
  const bool this_kind = (e.fault.kind == env::Fault::alloc && std::strcmp(kind, "alloc") == 0) ||
                         (e.fault.kind == env::Fault::launch && std::strcmp(kind, "launch") == 0);
  if (!this_kind) return false;
  if (e.fault.device >= 0) {
    int device = -1;
    if (e.device_twins > 0) {  // the context's place in the call (0 the first, twins after it)
      Gpu &g = gpu();
      device = 0;
      for (size_t i = 0; working_on != nullptr && i < g.others.size(); ++i)
        if (g.others[i] == working_on) device = int(i) + 1;
    } else if (cudaGetDevice(&device) != cudaSuccess) {
      return false;
    }
    if (device != e.fault.device) return false;
  }
  if (e.fault.from == 0) return true;
  // kind:N: the N-th attempt of this kind in the process fails, and every later one.
  static std::atomic<long> attempts{0};
  return attempts.fetch_add(1) + 1 >= e.fault.from;
}

namespace {

// cuPointerGetAttributes, from the driver the runtime has loaded (nullptr without it).
using PointerAttributes = int (*)(unsigned, int *, void **, unsigned long long);
PointerAttributes pointer_attributes() {
  static const PointerAttributes query = [] {
    void *libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);  // kept open (the runtime has it loaded)
    return libcuda != nullptr ? reinterpret_cast<PointerAttributes>(dlsym(libcuda, "cuPointerGetAttributes"))
                              : nullptr;
  }();
  return query;
}

// One byte's facts (cuda.h's CU_POINTER_ATTRIBUTE_*): what the current device may do there.
CallerMemory byte_memory(const void *p) {
  enum { kMemoryType = 2, kIsManaged = 8, kAccessFlags = 16 };  // CUpointer_attribute
  enum { kHost = 1, kDevice = 2 };                                // CUmemorytype
  enum { kRead = 0x1, kReadWrite = 0x3 };                         // CUpointer_access_flags
  CallerMemory m;
  const PointerAttributes query = pointer_attributes();
  if (query == nullptr) return m;
  // Each value in 8 zeroed bytes: the driver writes an enum, an int or a bool there.
  unsigned long long type = 0, managed = 0, access = 0;
  int attributes[] = {kMemoryType, kIsManaged, kAccessFlags};
  void *values[] = {&type, &managed, &access};
  // A pointer CUDA does not know is not an error: its values stay 0 (pageable).
  if (query(3, attributes, values, reinterpret_cast<unsigned long long>(p)) != 0) return m;
  if (managed == 0 && type != kHost && type != kDevice) return m;
  m.managed = managed != 0;
  m.readable = (access & kRead) != 0;
  m.writable = (access & kReadWrite) == kReadWrite;
  return m;
}

}  // namespace

CallerMemory caller_memory(const void *first, size_t span) {
  if (first == nullptr || span == 0) return {};
  const CallerMemory head = byte_memory(first);
  if (!head.readable || span == 1) return head;
  const CallerMemory tail = byte_memory(static_cast<const char *>(first) + (span - 1));
  return {head.readable && tail.readable, head.writable && tail.writable, head.managed && tail.managed};
}

Status upload_matrix(GpuContext &ctx, const void *host, size_t ld_bytes, size_t row_bytes,
                     size_t cols, void *dev, size_t ldd_bytes) {
  const auto *src = static_cast<const char *>(host);
  auto *dst = static_cast<char *>(dev);
  if (row_bytes > ctx.staging_bytes || caller_memory(host, array_span(ld_bytes, row_bytes, cols)).readable) {
    // A single column larger than a staging buffer (the driver stages it), or memory the
    // device reads itself.
    uploaded.fetch_add(row_bytes * cols);
    return check(cudaMemcpy2DAsync(dst, ldd_bytes, src, ld_bytes, row_bytes, cols, cudaMemcpyDefault, ctx.stream),
                 "upload");
  }
  // Chunks of at most a staging buffer, and at least two, so that the DMA of the first
  // overlaps the host copy of the second.
  const size_t fitting = ctx.staging_bytes / row_bytes;
  const size_t chunk_cols = cols > 1 && cols <= fitting ? (cols + 1) / 2 : fitting;
  for (size_t col = 0; col < cols; col += chunk_cols) {
    const size_t n = cols - col < chunk_cols ? cols - col : chunk_cols;
    Status s = upload_staged_piece(
        ctx, ctx.stream, "upload",
        [&](void *stage, StagingClock::time_point) {
          copy_columns(ctx.copier, stage, row_bytes, src + col * ld_bytes, ld_bytes, row_bytes, n);
        },
        [&](const void *stage) {
          return cudaMemcpy2DAsync(dst + col * ldd_bytes, ldd_bytes, stage, row_bytes, row_bytes, n,
                                   cudaMemcpyHostToDevice, ctx.stream);
        });
    if (s != Status::ok) return s;
    uploaded.fetch_add(row_bytes * n);
  }
  return Status::ok;
}

namespace {

// Device -> caller's array in chunks through a staging pair on `stream`. *cols_done: columns
// 0..*cols_done-1 are in the caller's array, also after a failure part way.
Status download_through(GpuContext &ctx, cudaStream_t stream, StagingPair pair, const void *dev, size_t ldd_bytes,
                        size_t row_bytes, size_t cols, void *host, size_t ld_bytes, size_t *cols_done) {
  const auto *src = static_cast<const char *>(dev);
  auto *dst = static_cast<char *>(host);
  *cols_done = 0;
  if (row_bytes > ctx.staging_bytes || caller_memory(host, array_span(ld_bytes, row_bytes, cols)).writable) {
    cudaError_t error = cudaMemcpy2DAsync(dst, ld_bytes, src, ldd_bytes, row_bytes, cols, cudaMemcpyDefault, stream);
    if (error == cudaSuccess) error = cudaStreamSynchronize(stream);
    if (error == cudaSuccess) *cols_done = cols;
    return check(error, "download");
  }
  // Chunks of at most a staging buffer, and at least two of them so that the host copy of
  // the first overlaps the DMA of the second.
  const size_t fitting = ctx.staging_bytes / row_bytes;
  const size_t chunk_cols = cols > 1 && cols <= fitting ? (cols + 1) / 2 : fitting;
  auto first_col = [&](size_t chunk) { return chunk * chunk_cols; };
  auto chunk_width = [&](size_t chunk) { return std::min(chunk_cols, cols - first_col(chunk)); };
  return download_staged(
      stream, pair, ceil_div(cols, chunk_cols), "download",
      [&](size_t chunk, void *stage) {
        return cudaMemcpy2DAsync(stage, row_bytes, src + first_col(chunk) * ldd_bytes, ldd_bytes, row_bytes,
                                 chunk_width(chunk), cudaMemcpyDeviceToHost, stream);
      },
      [&](size_t chunk, const void *stage, StagingClock::time_point) {
        copy_columns(ctx.copier, dst + first_col(chunk) * ld_bytes, ld_bytes, stage, row_bytes, row_bytes,
                     chunk_width(chunk));
        *cols_done = first_col(chunk) + chunk_width(chunk);
      });
}

}  // namespace

Status download_matrix(GpuContext &ctx, const void *dev, size_t ldd_bytes, size_t row_bytes,
                       size_t cols, void *host, size_t ld_bytes, size_t *cols_done) {
  size_t done_here = 0;
  return download_through(ctx, ctx.stream, calling_thread_staging(ctx), dev, ldd_bytes, row_bytes, cols, host,
                          ld_bytes, cols_done != nullptr ? cols_done : &done_here);
}

Status return_lane(GpuContext &ctx) {
  if (ctx.return_stream != nullptr) return Status::ok;
  cudaError_t error = cudaSuccess;
  for (int i = 0; i < GpuContext::kStaging && error == cudaSuccess; ++i) {
    if (ctx.return_staging[i] == nullptr) error = cudaHostAlloc(&ctx.return_staging[i], ctx.staging_bytes, cudaHostAllocDefault);
    if (error == cudaSuccess && ctx.return_free[i] == nullptr)
      error = cudaEventCreateWithFlags(&ctx.return_free[i], cudaEventDisableTiming);
  }
  // The stream last: its presence says the lane is complete.
  if (error == cudaSuccess) error = cudaStreamCreateWithFlags(&ctx.return_stream, cudaStreamNonBlocking);
  return check(error, "return lane");
}

Status download_matrix_returning(GpuContext &ctx, const void *dev, size_t ldd_bytes, size_t row_bytes,
                                 size_t cols, void *host, size_t ld_bytes) {
  if (Status s = return_lane(ctx); s != Status::ok) return s;
  size_t done = 0;
  return download_through(ctx, ctx.return_stream, return_lane_staging(ctx), dev, ldd_bytes, row_bytes,
                          cols, host, ld_bytes, &done);
}

}  // namespace cudrop::impl
