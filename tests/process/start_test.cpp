// start_test: CUDA's start overlapped with a process's first calls (auto mode; route/dispatch.cpp,
// impl/context/gpu_context.cu's gpu_starting). Each case runs in a fresh process (this program
// run again with a case's flag), since the start happens once per process:
//   --overlap      the first call that wants the GPU and is small enough (a 1024^3 DGEMM) runs on
//                  the CPU while CUDA starts; later ones reach the GPU once it has started (within
//                  20 s); every result right.
//   --heavy-first  a first call too large to be worth doing on the CPU meanwhile (DGEMM 4096^3)
//                  waits for the start and runs on the GPU.
//   --exit-early   one call, then exit at once, with the start under way: exit status 0, no
//                  crash or hang (run 8 times).
//   --fork-early   one call, then fork with the start under way: the child (which must not use
//                  its parent's CUDA) gets right answers on the CPU without hanging; the parent
//                  goes on to the GPU.
// With no flag: every case in its own process, each with a time limit. Exit 77 without a GPU.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "cudrop.h"
#include "tests/harness/check.h"
#include "tests/harness/gpu.h"
#include "tests/harness/rng.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point since) { return std::chrono::duration<double>(Clock::now() - since).count(); }

// C = A*B for random n x n A, B; true when C agrees with a few entries computed here.
bool gemm_right(int n, unsigned seed, double *took = nullptr) {
  Rng rng(seed);
  std::vector<double> a(size_t(n) * n), b(size_t(n) * n), c(size_t(n) * n, 0.0);
  for (double &x : a) x = rng.symmetric();
  for (double &x : b) x = rng.symmetric();
  const double one = 1, zero = 0;
  const auto t = Clock::now();
  dgemm_("N", "N", &n, &n, &n, &one, a.data(), &n, b.data(), &n, &zero, c.data(), &n, 1, 1);
  if (took != nullptr) *took = seconds(t);
  for (int probe = 0; probe < 16; ++probe) {
    const int i = int(rng.below(n)), j = int(rng.below(n));
    double want = 0, scale = 0;
    for (int l = 0; l < n; ++l) {
      want += a[i + size_t(l) * n] * b[l + size_t(j) * n];
      scale += std::fabs(a[i + size_t(l) * n] * b[l + size_t(j) * n]);
    }
    if (!(std::fabs(c[i + size_t(j) * n] - want) <= 64 * n * 1.1e-16 * scale)) return false;
  }
  return true;
}

int overlap() {
  double first = 0;
  const harness::Counters before = harness::Counters::now();
  CHECK(gemm_right(1024, 1, &first), "first dgemm_ 1024: wrong result");
  const harness::Counters after_first = harness::Counters::now().since(before);
  CHECK(after_first.cpu == 1 && after_first.gpu == 0, "first call: %ld on the CPU, %ld on the GPU; want it on the CPU",
        after_first.cpu, after_first.gpu);
  const auto t = Clock::now();
  int calls = 0;
  long on_gpu = 0;
  while (on_gpu == 0 && seconds(t) < 20) {
    const harness::Counters c0 = harness::Counters::now();
    CHECK(gemm_right(1024, 2 + calls, nullptr), "dgemm_ 1024 call %d: wrong result", calls + 2);
    on_gpu = harness::Counters::now().since(c0).gpu;
    ++calls;
  }
  CHECK(on_gpu == 1, "no call reached the GPU within 20 s of the first");
  double next = 0;
  CHECK(gemm_right(1024, 99, &next), "dgemm_ 1024 after the start: wrong result");
  std::printf("overlap: first call %.4f s on the CPU; GPU from call %d, %.3f s later; a GPU call %.4f s\n", first,
              calls + 1, seconds(t), next);
  return failures == 0 ? 0 : 1;
}

int heavy_first() {
  const harness::Counters before = harness::Counters::now();
  double took = 0;
  CHECK(gemm_right(4096, 3, &took), "dgemm_ 4096: wrong result");
  const harness::Counters made = harness::Counters::now().since(before);
  CHECK(made.gpu == 1, "first call 4096^3: %ld on the GPU, %ld on the CPU; want the GPU", made.gpu, made.cpu);
  std::printf("heavy-first: dgemm_ 4096 waited for the start and took %.4f s\n", took);
  return failures == 0 ? 0 : 1;
}

int exit_early() {
  CHECK(gemm_right(1024, 4), "dgemm_ 1024: wrong result");
  return failures == 0 ? 0 : 1;  // exit with the start still under way
}

int fork_early() {
  CHECK(gemm_right(1024, 5), "dgemm_ 1024 before fork: wrong result");
  const pid_t child = fork();
  if (child == 0) {
    alarm(120);  // a hang ends as a signal, which the parent reports
    const harness::Counters before = harness::Counters::now();
    const bool right = gemm_right(1024, 6) && gemm_right(600, 7);
    const harness::Counters made = harness::Counters::now().since(before);
    if (!right) std::printf("fork-early: wrong result in the child\n");
    if (made.gpu != 0) std::printf("fork-early: %ld calls of the child on the GPU\n", made.gpu);
    _exit(right && made.gpu == 0 ? 0 : 1);
  }
  CHECK(child > 0, "fork failed");
  int status = 0;
  CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0,
        "child: %s %d", WIFSIGNALED(status) ? "signal" : "exit status",
        WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
  const auto t = Clock::now();
  long on_gpu = 0;
  for (int call = 0; on_gpu == 0 && seconds(t) < 20; ++call) {
    const harness::Counters c0 = harness::Counters::now();
    CHECK(gemm_right(1024, 10 + call), "parent after fork: wrong result");
    on_gpu = harness::Counters::now().since(c0).gpu;
  }
  CHECK(on_gpu == 1, "the parent never reached the GPU after the fork");
  return failures == 0 ? 0 : 1;
}

// Runs this program with `flag` in a fresh process, limited to 180 s; true when it exited 0.
bool run_case(const char *self, const char *flag) {
  const pid_t pid = fork();
  if (pid == 0) {
    alarm(180);
    execl(self, self, flag, static_cast<char *>(nullptr));
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return false;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
  std::printf("%s: %s %d\n", flag, WIFSIGNALED(status) ? "killed by signal" : "exit status",
              WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
  return false;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc > 1) {
    const std::string flag = argv[1];
    if (flag == "--overlap") return overlap();
    if (flag == "--heavy-first") return heavy_first();
    if (flag == "--exit-early") return exit_early();
    if (flag == "--fork-early") return fork_early();
    std::fprintf(stderr, "usage: start_test [--overlap|--heavy-first|--exit-early|--fork-early]\n");
    return 2;
  }
  const char *mode = std::getenv("CUDROP_MODE");
  if (mode != nullptr && *mode != '\0' && std::strcmp(mode, "auto") != 0) {
    std::printf("start_test: SKIP: CUDROP_MODE=%s (the overlap is auto mode's)\n", mode);
    return harness::kSkipped;
  }
  if (harness::skip_without_gpu("start_test")) return harness::kSkipped;
  const char *self = "/proc/self/exe";
  char path[4096];
  const ssize_t length = readlink(self, path, sizeof path - 1);
  if (length > 0) {
    path[length] = '\0';
    self = path;
  }
  CHECK(run_case(self, "--overlap"), "--overlap failed");
  CHECK(run_case(self, "--heavy-first"), "--heavy-first failed");
  for (int i = 0; i < 8; ++i) CHECK(run_case(self, "--exit-early"), "--exit-early failed (run %d)", i + 1);
  CHECK(run_case(self, "--fork-early"), "--fork-early failed");
  std::printf("start_test: %d checks, %d failures\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
