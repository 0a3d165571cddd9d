# A whole R analysis at sizes where a GPU helps, as a user's script runs it: each step's time
# (elapsed), a checksum of its result, and the total. Run it plainly and under cudrop-run (or with
# the stand-in first on R_LD_LIBRARY_PATH) and compare; scripts/r-timing does all three.
#
#   Rscript --vanilla bench/r_program.R [--scale S]
#
# Output, one line each: "step NAME SECONDS CHECKSUM [ORDER]" and last "total SECONDS" (the
# format of bench/analysis.py). --scale multiplies every order (1: n = 8192 for the products,
# solves and factorizations, 6144 for the symmetric eigenproblem, 4096 for the SVD, about a
# minute or two on a 16-core host with OpenBLAS; 0.05 runs in a second, for a smoke test).
# Which LAPACK routine each step reaches (Debian's R 4.2): %*% and crossprod(a, b) dgemm,
# crossprod(a) dsyrk, solve dgesv, chol dpotrf, backsolve dtrsm, determinant dgetrf,
# qr(LAPACK = TRUE) dgeqp3 and qr.coef dormqr + dtrtrs, eigen(symmetric = TRUE) dsyevr,
# svd dgesdd.
args <- commandArgs(trailingOnly = TRUE)
scale <- 1
i <- match("--scale", args)
if (!is.na(i)) scale <- as.numeric(args[i + 1])
ord <- function(base) max(8L, as.integer(round(base * scale)))
n <- ord(8192); ne <- ord(6144); ns <- ord(4096); nq <- ord(2048); k <- ord(64)

total <- 0
step <- function(name, expr, check, size = n) {
  t <- system.time(value <- force(expr))[["elapsed"]]
  total <<- total + t
  cat(sprintf("step %s %.3f %.10g %d\n", name, t, check(value), size))
  flush(stdout())
  invisible(value)
}
csum <- function(x) sum(x) / length(x)

set.seed(20261202)
a <- step("generate", matrix(rnorm(n * n), n), csum)
b <- step("generate_b", matrix(rnorm(n * n), n), csum)
c <- step("matmul", a %*% b, csum)
rm(c)
g <- step("crossprod_ab", crossprod(a, b), csum)
rm(g)
s <- step("crossprod", crossprod(a), csum)
s <- s + diag(n, n)
rhs <- b[, seq_len(k)]
x <- step("solve", solve(s, rhs), csum)
r <- step("chol", chol(s), function(r) sum(log(diag(r))))
y <- step("backsolve", backsolve(r, backsolve(r, rhs, transpose = TRUE)), csum)
rm(x, y, r)
d <- step("determinant", determinant(s)$modulus, as.numeric)
q <- step("qr", qr(a[, seq_len(nq)], LAPACK = TRUE), function(q) sum(abs(diag(q$qr))), nq)
beta <- step("qr_coef", qr.coef(q, rhs), csum, nq)
rm(q, beta, s, rhs)
se <- crossprod(a[seq_len(ne), seq_len(ne)]) / ne
e <- step("eigen", eigen(se, symmetric = TRUE), function(e) sum(e$values) + sum(abs(e$vectors[, ne])), ne)
rm(e, se)
sv <- step("svd", svd(a[seq_len(ns), seq_len(ns)]), function(s) sum(s$d) + sum(abs(s$u[, 1])), ns)
cat(sprintf("total %.3f\n", total))
