/* cudrop-scalapack-bench: ScaLAPACK's pdgemm, pdgetrf, pdpotrf and pdgesv (double) on a P x Q
 * process grid, timed and checked. Each rank's local BLAS/LAPACK calls are what cudrop serves
 * when it is preloaded (mpirun -x LD_PRELOAD=libcudrop.so); run it without to time the CPU
 * BLAS underneath.
 *
 *   mpirun -np 4 cudrop-scalapack-bench [--n 4096,8192] [--nb 256] [--grid 2x2] [--reps 3]
 *                                        [--routines gemm,getrf,potrf,gesv]
 *
 * One line per routine and order on rank 0:
 *   scalapack_bench routine=pdgetrf n=8192 nb=256 grid=2x2 ranks=4 time_ms=... gflops=...
 *                   residual=... ok|FAILED
 * time_ms is the median of --reps runs (MPI_Wtime between barriers, the routine alone);
 * residual is the scaled backward error of the last run: for the factorizations and the
 * solve, ||b - A x||_inf / (||A||_inf ||x||_inf n eps) of a solve with b = A x_true; for pdgemm,
 * ||C x - A (B x)||_inf / (||A||_inf ||B||_inf ||x||_inf n eps). A residual above 30 (as the
 * LAPACK testers' threshold) or a nonzero INFO fails the run: exit status 1.
 * Matrices are filled from their global indices (a hash), so any grid gives the same matrix. */
#include <math.h>
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void Cblacs_pinfo(int *rank, int *nprocs);
void Cblacs_get(int context, int what, int *value);
void Cblacs_gridinit(int *context, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int context);
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrcproc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb, const int *irsrc,
               const int *icsrc, const int *ictxt, const int *lld, int *info);
/* PBLAS (C) */
void pdgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k, const double *alpha,
             const double *a, const int *ia, const int *ja, const int *desca, const double *b, const int *ib,
             const int *jb, const int *descb, const double *beta, double *c, const int *ic, const int *jc,
             const int *descc);
void pdgemv_(const char *trans, const int *m, const int *n, const double *alpha, const double *a, const int *ia,
             const int *ja, const int *desca, const double *x, const int *ix, const int *jx, const int *descx,
             const int *incx, const double *beta, double *y, const int *iy, const int *jy, const int *descy,
             const int *incy);
/* ScaLAPACK (Fortran: the hidden lengths of character arguments passed) */
void pdgetrf_(const int *m, const int *n, double *a, const int *ia, const int *ja, const int *desca, int *ipiv,
              int *info);
void pdgetrs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *ia, const int *ja,
              const int *desca, const int *ipiv, double *b, const int *ib, const int *jb, const int *descb,
              int *info, size_t trans_len);
void pdpotrf_(const char *uplo, const int *n, double *a, const int *ia, const int *ja, const int *desca, int *info,
              size_t uplo_len);
void pdpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *ia, const int *ja,
              const int *desca, double *b, const int *ib, const int *jb, const int *descb, int *info,
              size_t uplo_len);
void pdgesv_(const int *n, const int *nrhs, double *a, const int *ia, const int *ja, const int *desca, int *ipiv,
             double *b, const int *ib, const int *jb, const int *descb, int *info);
double pdlange_(const char *norm, const int *m, const int *n, const double *a, const int *ia, const int *ja,
                const int *desca, double *work, size_t norm_len);

static const int kZero = 0, kOne = 1;
static const double kThreshold = 30;

typedef struct {
  int context, nprow, npcol, myrow, mycol, rank, nprocs;
} Grid;

/* One distributed matrix: rows x cols in nb x nb blocks from process (0, 0). */
typedef struct {
  int rows, cols, local_rows, local_cols, desc[9];
  double *data;
} Matrix;

static Matrix matrix_new(const Grid *g, int rows, int cols, int nb) {
  Matrix m;
  m.rows = rows;
  m.cols = cols;
  m.local_rows = numroc_(&rows, &nb, &g->myrow, &kZero, &g->nprow);
  m.local_cols = numroc_(&cols, &nb, &g->mycol, &kZero, &g->npcol);
  const int lld = m.local_rows > 1 ? m.local_rows : 1;
  int info = 0;
  descinit_(m.desc, &rows, &cols, &nb, &nb, &kZero, &kZero, &g->context, &lld, &info);
  if (info != 0) {
    fprintf(stderr, "scalapack_bench: descinit info %d\n", info);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  m.data = malloc(sizeof(double) * (size_t)lld * (size_t)(m.local_cols > 0 ? m.local_cols : 1));
  if (m.data == NULL) {
    fprintf(stderr, "scalapack_bench: out of host memory for a %d x %d matrix\n", rows, cols);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return m;
}

static int lld_of(const Matrix *m) { return m->desc[8]; }

/* Global index of local index `l` along a dimension cut in nb blocks over `procs` processes. */
static long long global_index(int l, int nb, int me, int procs) {
  return ((long long)(l / nb) * procs + me) * nb + l % nb;
}

/* A deterministic value in [-0.5, 0.5) for global (i, j) and a seed (splitmix64). */
static double hashed(long long i, long long j, uint64_t seed) {
  uint64_t z = (uint64_t)i * 0x9E3779B97F4A7C15ull ^ ((uint64_t)j + 0x632BE59BD9B4E019ull) * 0xBF58476D1CE4E5B9ull ^ seed;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double)(z >> 11) * (1.0 / 9007199254740992.0) - 0.5;
}

/* Fills m: general random entries, or symmetric ones plus n on the diagonal (positive definite). */
static void fill(const Grid *g, Matrix *m, int nb, uint64_t seed, int spd) {
  const int lld = lld_of(m);
  for (int lj = 0; lj < m->local_cols; ++lj) {
    const long long j = global_index(lj, nb, g->mycol, g->npcol);
    for (int li = 0; li < m->local_rows; ++li) {
      const long long i = global_index(li, nb, g->myrow, g->nprow);
      double v = spd ? hashed(i < j ? i : j, i < j ? j : i, seed) : hashed(i, j, seed);
      if (spd && i == j) v += m->rows;
      m->data[li + (size_t)lj * lld] = v;
    }
  }
}

static void copy_local(const Matrix *from, Matrix *to) {
  memcpy(to->data, from->data, sizeof(double) * (size_t)lld_of(from) * (size_t)(from->local_cols > 0 ? from->local_cols : 1));
}

static double inf_norm(const Matrix *m, double *work) {
  return pdlange_("I", &m->rows, &m->cols, m->data, &kOne, &kOne, m->desc, work, 1);
}

static int compare_doubles(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

typedef struct {
  const char *name;
  double (*flops)(double n);
  int spd;
} Routine;

static double gemm_flops(double n) { return 2 * n * n * n; }
static double getrf_flops(double n) { return 2.0 / 3 * n * n * n; }
static double potrf_flops(double n) { return 1.0 / 3 * n * n * n; }
static double gesv_flops(double n) { return 2.0 / 3 * n * n * n + 2 * n * n; }

/* Times one routine at order n; returns 0 when its check passed. */
static int run(const Grid *g, const char *which, int n, int nb, int reps) {
  const Routine routines[] = {{"gemm", gemm_flops, 0}, {"getrf", getrf_flops, 0},
                              {"potrf", potrf_flops, 1}, {"gesv", gesv_flops, 0}};
  const Routine *r = NULL;
  for (size_t i = 0; i < sizeof routines / sizeof routines[0]; ++i)
    if (strcmp(routines[i].name, which) == 0) r = &routines[i];
  if (r == NULL) {
    if (g->rank == 0) fprintf(stderr, "scalapack_bench: unknown routine %s\n", which);
    return 1;
  }
  const int is_gemm = strcmp(which, "gemm") == 0, is_gesv = strcmp(which, "gesv") == 0;
  Matrix a0 = matrix_new(g, n, n, nb), a = matrix_new(g, n, n, nb);
  Matrix b = matrix_new(g, n, n, nb), c = matrix_new(g, n, n, nb);  /* pdgemm's B and C */
  Matrix x_true = matrix_new(g, n, 1, nb), rhs = matrix_new(g, n, 1, nb), y = matrix_new(g, n, 1, nb);
  fill(g, &a0, nb, 1, r->spd);
  if (is_gemm) fill(g, &b, nb, 2, 0);
  fill(g, &x_true, nb, 3, 0);
  int *ipiv = malloc(sizeof(int) * (size_t)(a.local_rows + nb));
  const int work_size = a.local_rows + a.local_cols + 2 * nb;
  double *work = malloc(sizeof(double) * (size_t)work_size);
  double *times = malloc(sizeof(double) * (size_t)reps);
  int info = 0;
  const double one = 1, zero = 0, minus_one = -1;

  for (int rep = 0; rep < reps; ++rep) {
    copy_local(&a0, &a);
    if (is_gesv) {  /* rhs = A x_true, computed before the timed solve overwrites it */
      pdgemv_("N", &n, &n, &one, a0.data, &kOne, &kOne, a0.desc, x_true.data, &kOne, &kOne, x_true.desc, &kOne, &zero,
              rhs.data, &kOne, &kOne, rhs.desc, &kOne);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    if (is_gemm)
      pdgemm_("N", "N", &n, &n, &n, &one, a.data, &kOne, &kOne, a.desc, b.data, &kOne, &kOne, b.desc, &zero, c.data,
              &kOne, &kOne, c.desc);
    else if (strcmp(which, "getrf") == 0)
      pdgetrf_(&n, &n, a.data, &kOne, &kOne, a.desc, ipiv, &info);
    else if (strcmp(which, "potrf") == 0)
      pdpotrf_("L", &n, a.data, &kOne, &kOne, a.desc, &info, 1);
    else
      pdgesv_(&n, &kOne, a.data, &kOne, &kOne, a.desc, ipiv, rhs.data, &kOne, &kOne, rhs.desc, &info);
    MPI_Barrier(MPI_COMM_WORLD);
    times[rep] = MPI_Wtime() - t0;
    if (info != 0) break;
  }

  /* The check, on the last run's output. */
  double residual = INFINITY;
  const double eps = 1.1102230246251565e-16;
  if (info == 0) {
    if (is_gemm) {
      /* y = B x; rhs = A y; y := C x - rhs */
      pdgemv_("N", &n, &n, &one, b.data, &kOne, &kOne, b.desc, x_true.data, &kOne, &kOne, x_true.desc, &kOne, &zero,
              y.data, &kOne, &kOne, y.desc, &kOne);
      pdgemv_("N", &n, &n, &one, a0.data, &kOne, &kOne, a0.desc, y.data, &kOne, &kOne, y.desc, &kOne, &zero,
              rhs.data, &kOne, &kOne, rhs.desc, &kOne);
      pdgemv_("N", &n, &n, &one, c.data, &kOne, &kOne, c.desc, x_true.data, &kOne, &kOne, x_true.desc, &kOne,
              &minus_one, rhs.data, &kOne, &kOne, rhs.desc, &kOne);
      residual = inf_norm(&rhs, work) /
                 (inf_norm(&a0, work) * inf_norm(&b, work) * inf_norm(&x_true, work) * n * eps);
    } else {
      Matrix *x = &rhs;  /* the solution lands in the right-hand side */
      if (!is_gesv) {
        pdgemv_("N", &n, &n, &one, a0.data, &kOne, &kOne, a0.desc, x_true.data, &kOne, &kOne, x_true.desc, &kOne,
                &zero, rhs.data, &kOne, &kOne, rhs.desc, &kOne);
        if (strcmp(which, "getrf") == 0)
          pdgetrs_("N", &n, &kOne, a.data, &kOne, &kOne, a.desc, ipiv, rhs.data, &kOne, &kOne, rhs.desc, &info, 1);
        else
          pdpotrs_("L", &n, &kOne, a.data, &kOne, &kOne, a.desc, rhs.data, &kOne, &kOne, rhs.desc, &info, 1);
      }
      /* y = A0 x_true (= b); y := b - A0 x */
      pdgemv_("N", &n, &n, &one, a0.data, &kOne, &kOne, a0.desc, x_true.data, &kOne, &kOne, x_true.desc, &kOne, &zero,
              y.data, &kOne, &kOne, y.desc, &kOne);
      pdgemv_("N", &n, &n, &minus_one, a0.data, &kOne, &kOne, a0.desc, x->data, &kOne, &kOne, x->desc, &kOne, &one,
              y.data, &kOne, &kOne, y.desc, &kOne);
      residual = inf_norm(&y, work) / (inf_norm(&a0, work) * inf_norm(x, work) * n * eps);
    }
  }

  const int done = info == 0 ? reps : 0;
  qsort(times, (size_t)done, sizeof(double), compare_doubles);
  const double median = done > 0 ? times[done / 2] : NAN;
  const int ok = info == 0 && residual < kThreshold;
  if (g->rank == 0) {
    printf("scalapack_bench routine=pd%s n=%d nb=%d grid=%dx%d ranks=%d time_ms=%.2f gflops=%.1f residual=%.3g info=%d %s\n",
           which, n, nb, g->nprow, g->npcol, g->nprocs, median * 1e3, r->flops(n) / median * 1e-9, residual, info,
           ok ? "ok" : "FAILED");
    fflush(stdout);
  }
  free(times);
  free(work);
  free(ipiv);
  free(a0.data), free(a.data), free(b.data), free(c.data), free(x_true.data), free(rhs.data), free(y.data);
  return ok ? 0 : 1;
}

static void usage(void) {
  fprintf(stderr, "usage: mpirun -np P cudrop-scalapack-bench [--n N1,N2,...] [--nb NB] [--grid PxQ] [--reps R]\n"
                  "                                           [--routines gemm,getrf,potrf,gesv]\n");
  MPI_Abort(MPI_COMM_WORLD, 2);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  Grid g;
  Cblacs_pinfo(&g.rank, &g.nprocs);
  const char *sizes = "1024,2048", *routines = "gemm,getrf,potrf,gesv";
  int nb = 256, reps = 3, nprow = 0, npcol = 0;
  for (int i = 1; i < argc; ++i) {
    if (i + 1 >= argc) usage();
    if (strcmp(argv[i], "--n") == 0) sizes = argv[++i];
    else if (strcmp(argv[i], "--nb") == 0) nb = atoi(argv[++i]);
    else if (strcmp(argv[i], "--reps") == 0) reps = atoi(argv[++i]);
    else if (strcmp(argv[i], "--routines") == 0) routines = argv[++i];
    else if (strcmp(argv[i], "--grid") == 0) {
      if (sscanf(argv[++i], "%dx%d", &nprow, &npcol) != 2) usage();
    } else usage();
  }
  if (nprow <= 0 || npcol <= 0) {  /* the squarest grid, P <= Q */
    nprow = (int)sqrt((double)g.nprocs);
    while (g.nprocs % nprow != 0) --nprow;
    npcol = g.nprocs / nprow;
  }
  if (nprow * npcol != g.nprocs || nb <= 0 || reps <= 0) usage();
  Cblacs_get(-1, 0, &g.context);
  Cblacs_gridinit(&g.context, "Row", nprow, npcol);
  Cblacs_gridinfo(g.context, &g.nprow, &g.npcol, &g.myrow, &g.mycol);

  int failures = 0;
  char *size_list = strdup(sizes);
  for (char *size = strtok(size_list, ","); size != NULL; size = strtok(NULL, ",")) {
    char *routine_list = strdup(routines), *save = NULL;
    for (char *routine = strtok_r(routine_list, ",", &save); routine != NULL; routine = strtok_r(NULL, ",", &save))
      failures += run(&g, routine, atoi(size), nb, reps);
    free(routine_list);
  }
  free(size_list);
  Cblacs_gridexit(g.context);
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
