/* cudrop-info: what cudrop finds on this machine (cudrop_info: in short, or everything with
 * --all or --json), and with --check a small GEMM, LU and Cholesky run through cudrop's public
 * entries once with CUDROP_MODE=gpu and once with CUDROP_MODE=cpu, compared. The mode is read
 * once per process, so each run is a child process of this program (the hidden --check-child
 * FILE MODE), which writes its results to FILE. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cudrop.h"

enum { M = 200, N = 150, K = 170, NF = 300, ROUTINES = 4 };
static const char *const kNames[ROUTINES] = {"sgemm", "dgemm", "dgetrf", "dpotrf"};

/* What one child writes: where each routine ran (counter deltas) and its results. */
struct Results {
  long gpu[ROUTINES], cpu[ROUTINES], fallbacks[ROUTINES];
  int info[ROUTINES];
  float sc[M * N];
  double dc[M * N];
  double lu[NF * NF];
  int ipiv[NF];
  double chol[NF * NF];
};

/* The same inputs in both children: a fixed generator, entries in [-1, 1). */
static unsigned long long rng_state;
static double uniform(void) {
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rng_state >> 11) / 9007199254740992.0 * 2 - 1;
}

struct Inputs {
  float sa[M * K], sb[K * N], sc[M * N];
  double da[M * K], db[K * N], dc[M * N];
  double a[NF * NF], spd[NF * NF];
};

static void make_inputs(struct Inputs *in) {
  rng_state = 20240601;
  for (int i = 0; i < M * K; ++i) in->da[i] = uniform(), in->sa[i] = (float)in->da[i];
  for (int i = 0; i < K * N; ++i) in->db[i] = uniform(), in->sb[i] = (float)in->db[i];
  for (int i = 0; i < M * N; ++i) in->dc[i] = uniform(), in->sc[i] = (float)in->dc[i];
  for (int i = 0; i < NF * NF; ++i) in->a[i] = uniform();
  /* Symmetric, diagonally dominant: positive definite. */
  for (int j = 0; j < NF; ++j)
    for (int i = 0; i <= j; ++i) {
      const double v = uniform();
      in->spd[i + j * NF] = in->spd[j + i * NF] = v;
    }
  for (int i = 0; i < NF; ++i) in->spd[i + i * NF] += NF;
}

static void counters_now(long c[3]) { cudrop_counters(&c[0], &c[1], &c[2]); }
static void ran(struct Results *r, int routine, const long before[3]) {
  long after[3];
  counters_now(after);
  r->gpu[routine] = after[0] - before[0];
  r->cpu[routine] = after[1] - before[1];
  r->fallbacks[routine] = after[2] - before[2];
}

static int check_child(const char *file) {
  static struct Inputs in;
  static struct Results r;
  make_inputs(&in);
  const int m = M, n = N, k = K, nf = NF;
  long before[3];
  const float salpha = 1.5f, sbeta = 0.5f;
  const double dalpha = 1.5, dbeta = 0.5;
  memcpy(r.sc, in.sc, sizeof r.sc);
  counters_now(before);
  sgemm_("N", "N", &m, &n, &k, &salpha, in.sa, &m, in.sb, &k, &sbeta, r.sc, &m, 1, 1);
  ran(&r, 0, before);
  memcpy(r.dc, in.dc, sizeof r.dc);
  counters_now(before);
  dgemm_("N", "N", &m, &n, &k, &dalpha, in.da, &m, in.db, &k, &dbeta, r.dc, &m, 1, 1);
  ran(&r, 1, before);
  memcpy(r.lu, in.a, sizeof r.lu);
  counters_now(before);
  dgetrf_(&nf, &nf, r.lu, &nf, r.ipiv, &r.info[2]);
  ran(&r, 2, before);
  memcpy(r.chol, in.spd, sizeof r.chol);
  counters_now(before);
  dpotrf_("L", &nf, r.chol, &nf, &r.info[3], 1);
  ran(&r, 3, before);
  FILE *f = fopen(file, "wb");
  if (f == NULL || fwrite(&r, sizeof r, 1, f) != 1 || fclose(f) != 0) {
    fprintf(stderr, "cudrop-info: cannot write %s: %s\n", file, strerror(errno));
    return 1;
  }
  return 0;
}

/* Runs this program with --check-child in CUDROP_MODE=mode; its results in *r. */
static int run_child(const char *mode, struct Results *r) {
  const char *dir = getenv("TMPDIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/cudrop-info-XXXXXX", dir != NULL && *dir ? dir : "/tmp");
  int fd = mkstemp(path);
  if (fd < 0) {
    fprintf(stderr, "cudrop-info: cannot make a temporary file (%s): %s\n", path, strerror(errno));
    return 1;
  }
  close(fd);
  const pid_t pid = fork();
  if (pid == 0) {
    setenv("CUDROP_MODE", mode, 1);
    execl("/proc/self/exe", "cudrop-info", "--check-child", path, (char *)NULL);
    fprintf(stderr, "cudrop-info: cannot run itself: %s\n", strerror(errno));
    _exit(127);
  }
  int status = 0, ok = 0;
  if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    FILE *f = fopen(path, "rb");
    ok = f != NULL && fread(r, sizeof *r, 1, f) == 1;
    if (f != NULL) fclose(f);
  }
  unlink(path);
  if (!ok) fprintf(stderr, "cudrop-info: the CUDROP_MODE=%s run failed\n", mode);
  return ok ? 0 : 1;
}

static double max_abs_d(const double *x, size_t count) {
  double m = 0;
  for (size_t i = 0; i < count; ++i) m = fmax(m, fabs(x[i]));
  return m;
}
static double max_diff_d(const double *x, const double *y, size_t count) {
  double m = 0;
  for (size_t i = 0; i < count; ++i) m = fmax(m, fabs(x[i] - y[i]));
  return m;
}

static const char *where(const struct Results *r, int routine) {
  if (r->fallbacks[routine] > 0) return "GPU, fell back to CPU";
  if (r->gpu[routine] > 0) return "GPU";
  if (r->cpu[routine] > 0) return "CPU";
  return "?";
}

/* max |P*A - L*U| over the entries, for dgetrf's output lu/ipiv of the NF x NF matrix a. */
static double lu_residual(const double *a, const double *lu, const int *ipiv) {
  static double pa[NF * NF];
  memcpy(pa, a, sizeof pa);
  for (int i = 0; i < NF; ++i) {
    const int p = ipiv[i] - 1;
    if (p == i || p < 0 || p >= NF) continue;
    for (int j = 0; j < NF; ++j) {
      const double t = pa[i + j * NF];
      pa[i + j * NF] = pa[p + j * NF];
      pa[p + j * NF] = t;
    }
  }
  double worst = 0;
  for (int j = 0; j < NF; ++j)
    for (int i = 0; i < NF; ++i) {
      double sum = 0; /* (L*U)_ij, L unit lower, U upper */
      const int last = i < j ? i : j;
      for (int k = 0; k <= last; ++k) sum += (k == i ? 1.0 : lu[i + k * NF]) * lu[k + j * NF];
      worst = fmax(worst, fabs(pa[i + j * NF] - sum));
    }
  return worst;
}

static int check(void) {
  static struct Results g, c;
  if (run_child("gpu", &g) != 0 || run_child("cpu", &c) != 0) return 1;
  static struct Inputs in;
  make_inputs(&in);
  double diff[ROUTINES], bound[ROUTINES];
  /* GEMM: each entry of alpha*A*B + beta*C is a sum of K products, each run's rounding at most
   * about K*eps*(|alpha||A||B| + |beta||C|) (Higham's bound, entries bounded by the maxima). */
  {
    double sdiff = 0, sc = 0, ddiff = 0;
    for (int i = 0; i < M * N; ++i) sdiff = fmax(sdiff, fabs((double)g.sc[i] - c.sc[i])), sc = fmax(sc, fabs(in.dc[i]));
    ddiff = max_diff_d(g.dc, c.dc, M * N);
    const double scale = 1.5 * K * max_abs_d(in.da, M * K) * max_abs_d(in.db, K * N) + 0.5 * sc;
    diff[0] = sdiff, bound[0] = 2 * 4 * K * FLT_EPSILON * scale;
    diff[1] = ddiff, bound[1] = 2 * 4 * K * DBL_EPSILON * scale;
  }
  /* LU and Cholesky: the factors of a well-conditioned matrix (random, and diagonally dominant)
   * agree to a small multiple of n*eps of their size. Where rounding made the two runs pick
   * different pivots (two candidates of almost the same size), the factors differ and each is
   * judged by itself instead: P*A = L*U to the same bound. */
  bound[2] = 100.0 * NF * DBL_EPSILON * max_abs_d(c.lu, NF * NF);
  if (memcmp(g.ipiv, c.ipiv, sizeof g.ipiv) == 0) {
    diff[2] = max_diff_d(g.lu, c.lu, NF * NF);
  } else {
    printf("dgetrf: the two runs chose different pivots; each factorization checked against A\n");
    diff[2] = fmax(lu_residual(in.a, g.lu, g.ipiv), lu_residual(in.a, c.lu, c.ipiv));
  }
  double cdiff = 0;
  for (int j = 0; j < NF; ++j)
    for (int i = j; i < NF; ++i) cdiff = fmax(cdiff, fabs(g.chol[i + j * NF] - c.chol[i + j * NF]));
  diff[3] = cdiff;
  bound[3] = 100.0 * NF * DBL_EPSILON * max_abs_d(c.chol, NF * NF);
  int failures = 0, gpu_ran = 0;
  for (int r = 0; r < ROUTINES; ++r) gpu_ran |= g.gpu[r] > 0;
  for (int r = 0; r < ROUTINES; ++r) {
    const int pass = diff[r] <= bound[r] && g.info[r] == 0 && c.info[r] == 0;
    failures += !pass;
    printf("%-7s CUDROP_MODE=gpu ran on %s, CUDROP_MODE=cpu on %s: max difference %.3g (bound %.3g) %s\n",
           kNames[r], where(&g, r), where(&c, r), diff[r], bound[r], pass ? "PASS" : "FAIL");
  }
  if (failures != 0) return 1;
  /* Agreement of two CPU runs says nothing of the GPU path: a script must not read it as a pass. */
  if (!gpu_ran) {
    printf("GPU path not checked: nothing ran on the GPU (cudrop-info says why); the CPU results agree\n");
    return 3;
  }
  return 0;
}

static void usage(FILE *to) {
  fprintf(to, "usage: cudrop-info [--all | --json] [--check]\n"
              "  (no option)  version, build, GPU, the CPU BLAS/LAPACK libraries, the users' settings\n"
              "  --all        also each CPU routine, the tuning knobs and test hooks, the auto-mode thresholds\n"
              "  --json       all of it as one JSON object\n"
              "  --check      run GEMM, LU and Cholesky with CUDROP_MODE=gpu and =cpu and compare:\n"
              "               exit 0 when the GPU ran them and both agree, 1 when they differ,\n"
              "               3 when they agree but nothing ran on the GPU (\"GPU path not checked\")\n");
}

int main(int argc, char **argv) {
  int all = 0, json = 0, do_check = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--check-child") == 0 && i + 1 < argc) return check_child(argv[i + 1]);
    if (strcmp(argv[i], "--json") == 0) json = 1;
    else if (strcmp(argv[i], "--all") == 0) all = 1;
    else if (strcmp(argv[i], "--check") == 0) do_check = 1;
    else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      usage(stdout);
      return 0;
    } else {
      fprintf(stderr, "cudrop-info: unknown option '%s'\n", argv[i]);
      usage(stderr);
      return 2;
    }
  }
  if (do_check) return check();
  const int form = json ? CUDROP_INFO_JSON : all ? CUDROP_INFO_ALL : CUDROP_INFO_SHORT;
  const size_t length = cudrop_info(NULL, 0, form);
  char *text = malloc(length + 1);
  if (text == NULL) return 1;
  cudrop_info(text, length + 1, form);
  fputs(text, stdout);
  free(text);
  return 0;
}
