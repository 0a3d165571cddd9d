"""A whole numpy/scipy/scikit-learn analysis, as a user's script runs it: each step's time, a
checksum of its result, and the total. Run it plainly and under cudrop-run and compare (the
checksums say whether both computed the same thing; on the CPU path they are equal digit for
digit):

    python3 bench/analysis.py [--scale S] [--only STEP,...]
    cudrop-run python3 bench/analysis.py [--scale S]

--scale multiplies every order (1: the sizes of the issue's trial on a 16-core host and one
GPU, about a minute without cudrop; 0.05 runs in a second or two, for a smoke test). Steps
whose library is missing (scikit-learn) print "skipped".
"""
import argparse
import sys
import time

import numpy as np


def order(base, scale, least=8):
    return max(least, int(round(base * scale)))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--only", default="", help="comma-separated step names")
    args = p.parse_args()
    s = args.scale
    only = set(filter(None, args.only.split(",")))
    import scipy.linalg as sla

    rng = np.random.default_rng(20261202)
    n, big = order(4096, s), order(8192, s)
    tall_m, tall_n = order(32768, s), order(2048, s)
    a = rng.standard_normal((n, n))
    sym = a + a.T
    spd = a @ a.T / n + np.eye(n)
    rhs = rng.standard_normal((n, 64))
    tall = rng.standard_normal((tall_m, tall_n))
    tall_rhs = rng.standard_normal((tall_m, 16))
    g = rng.standard_normal((big, big))

    def cg(matrix, b, iterations):
        # Conjugate gradients on one SPD matrix: many products with the same operand.
        x = np.zeros_like(b)
        r = b - matrix @ x
        d = r.copy()
        rr = r @ r
        for _ in range(iterations):
            q = matrix @ d
            alpha = rr / (d @ q)
            x += alpha * d
            r -= alpha * q
            rr_next = r @ r
            d = r + (rr_next / rr) * d
            rr = rr_next
        return x

    def pca():
        try:
            from sklearn.decomposition import PCA
        except ImportError:
            return None
        return PCA(n_components=16, svd_solver="full").fit(tall).explained_variance_

    steps = [
        ("matmul", lambda: g @ g),
        ("solve", lambda: np.linalg.solve(a, rhs)),
        ("cholesky", lambda: np.linalg.cholesky(spd)),
        ("inv", lambda: np.linalg.inv(a)),
        ("lu_factor", lambda: sla.lu_factor(a)[0]),
        ("qr", lambda: np.linalg.qr(tall, mode="r")),
        ("eigh", lambda: np.linalg.eigh(sym)[0]),
        ("eigh_generalized", lambda: sla.eigh(sym, spd, eigvals_only=True)),
        ("svd", lambda: np.linalg.svd(tall, compute_uv=False)),
        ("lstsq", lambda: np.linalg.lstsq(tall, tall_rhs, rcond=None)[0]),
        ("cg", lambda: cg(spd, rhs[:, 0], 200)),
        ("pca", pca),
    ]
    total = 0.0
    for name, step in steps:
        if only and name not in only:
            continue
        start = time.perf_counter()
        result = step()
        seconds = time.perf_counter() - start
        if result is None:
            print(f"step {name:18s} skipped")
            continue
        total += seconds
        checksum = float(np.abs(np.asarray(result)).sum())
        print(f"step {name:18s} {seconds:9.3f} s  checksum {checksum:.15e}")
    print(f"total {total:.3f} s (n={n}, tall {tall_m}x{tall_n}, matmul {big})")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
