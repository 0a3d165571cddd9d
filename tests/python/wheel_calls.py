"""The numpy/scipy operations of the wheels test (tests/python/wheels.sh), on seeded random data.

  wheel_calls.py run OUT.npz [--n N]   computes every operation, saves the results
  wheel_calls.py compare A.npz B.npz [--rtol R]
                                       exit 0 when B equals A bit for bit (or, with --rtol, every
                                       result within R of A relative to A's largest entry)
  wheel_calls.py threads               the BLAS libraries threadpoolctl reports; exit 0 when it
                                       finds one and can limit it to one thread

Each operation is one that numpy or scipy hands to its BLAS/LAPACK: matmul in four precisions
(cblas_?gemm), a @ a.T (cblas_?syrk), solve and inv (?gesv), cholesky (?potrf), slogdet (?getrf),
and scipy's lu_factor/lu_solve (?getrf/?getrs), cho_factor/cho_solve (?potrf/?potrs), solve with
assume_a 'sym'/'her' (?sysv/?hesv) and ldl (?sytrf/?hetrf); and the
errors numpy raises from a singular or indefinite matrix and from mismatched shapes.
"""
import argparse
import sys

import numpy as np


def operations(n):
    rng = np.random.default_rng(20261127)
    results = {}
    for name, dtype in (("s", np.float32), ("d", np.float64), ("c", np.complex64), ("z", np.complex128)):
        a = rng.standard_normal((n, n))
        b = rng.standard_normal((n, n + 3))
        if name in "cz":
            a = a + 1j * rng.standard_normal((n, n))
            b = b + 1j * rng.standard_normal((n, n + 3))
        a = a.astype(dtype)
        b = b.astype(dtype)
        # A well-conditioned Hermitian positive definite matrix.
        spd = (a @ a.conj().T + n * np.eye(n, dtype=dtype)).astype(dtype)
        results[f"matmul_{name}"] = a @ b
        results[f"matmul_t_{name}"] = a.T @ b
        results[f"gram_{name}"] = a @ a.T
        results[f"solve_{name}"] = np.linalg.solve(a, b)
        results[f"cholesky_{name}"] = np.linalg.cholesky(spd)
        results[f"inv_{name}"] = np.linalg.inv(a)
        results[f"slogdet_{name}"] = np.array(np.linalg.slogdet(a))
        try:
            import scipy.linalg as sla
        except ImportError:
            continue
        lu, piv = sla.lu_factor(a)
        results[f"lu_factor_{name}"] = lu
        results[f"lu_piv_{name}"] = piv
        results[f"lu_solve_{name}"] = sla.lu_solve((lu, piv), b)
        factor = sla.cho_factor(spd, lower=(name in "sc"))
        results[f"cho_factor_{name}"] = factor[0]
        results[f"cho_solve_{name}"] = sla.cho_solve(factor, b)
        # The symmetric indefinite drivers (?sysv, ?hesv) and factorization (?sytrf, ?hetrf).
        sym = (a + a.T).astype(dtype)
        results[f"solve_sym_{name}"] = sla.solve(sym, b, assume_a="sym")
        lu_sym, d_sym, perm_sym = sla.ldl(sym, hermitian=False)
        results[f"ldl_{name}"] = lu_sym
        results[f"ldl_d_{name}"] = d_sym
        if name in "cz":
            her = (a + a.conj().T).astype(dtype)
            results[f"solve_her_{name}"] = sla.solve(her, b, assume_a="her")
            results[f"ldl_her_{name}"] = sla.ldl(her)[0]
    # numpy's errors, raised from the routines' INFO and its own checks.
    for key, failing in (("singular", lambda: np.linalg.solve(np.zeros((4, 4)), np.ones(4))),
                         ("not_spd", lambda: np.linalg.cholesky(-np.eye(5))),
                         ("shapes", lambda: np.ones((3, 4)) @ np.ones((5, 2)))):
        try:
            failing()
            results[f"error_{key}"] = np.array("no error")
        except (np.linalg.LinAlgError, ValueError) as error:
            results[f"error_{key}"] = np.array(f"{type(error).__name__}: {error}")
    return results


def threads():
    """The BLAS libraries threadpoolctl sees, and whether it can set their threads."""
    from threadpoolctl import threadpool_info, threadpool_limits
    blas = [i for i in threadpool_info() if i.get("user_api") == "blas"]
    for info in blas:
        print(f"{info['internal_api']} {info['filepath'].rsplit('/', 1)[-1]} prefix={info.get('prefix')}")
    with threadpool_limits(limits=1, user_api="blas"):
        limited = [i["num_threads"] for i in threadpool_info() if i.get("user_api") == "blas"]
    print(f"limited to {limited}")
    return 0 if blas and all(t == 1 for t in limited) else 1


def compare(a_file, b_file, rtol):
    a, b = np.load(a_file), np.load(b_file)
    bad = []
    if sorted(a.files) != sorted(b.files):
        bad.append(f"different results: {sorted(set(a.files) ^ set(b.files))}")
    for key in sorted(set(a.files) & set(b.files)):
        x, y = a[key], b[key]
        if x.shape != y.shape or x.dtype != y.dtype:
            bad.append(f"{key}: shape/dtype {x.shape} {x.dtype} vs {y.shape} {y.dtype}")
        elif rtol is None:
            if x.tobytes() != y.tobytes():
                bad.append(f"{key}: not bit-identical (largest difference {np.max(np.abs(x - y)):.3g})")
        elif key.startswith("lu_piv"):
            if not np.array_equal(x, y):  # pivots may differ on near ties; report, judged below
                bad.append(f"{key}: pivots differ")
        else:
            scale = max(float(np.max(np.abs(x))), 1e-300)
            err = float(np.max(np.abs(x - y))) / scale if x.size else 0.0
            if not err <= rtol:
                bad.append(f"{key}: relative difference {err:.3g} > {rtol:g}")
    for line in bad:
        print("wheel_calls:", line)
    print(f"wheel_calls: {len(a.files) - len(bad)} of {len(a.files)} results agree"
          + (" bit for bit" if rtol is None else f" within {rtol:g}"))
    return 1 if bad else 0


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run")
    run.add_argument("out")
    run.add_argument("--n", type=int, default=96)
    cmp = sub.add_parser("compare")
    cmp.add_argument("a")
    cmp.add_argument("b")
    cmp.add_argument("--rtol", type=float)
    sub.add_parser("threads")
    args = parser.parse_args()
    if args.command == "threads":
        return threads()
    if args.command == "run":
        np.savez(args.out, **operations(args.n))
        return 0
    return compare(args.a, args.b, args.rtol)


if __name__ == "__main__":
    sys.exit(main())
