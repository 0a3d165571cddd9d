"""scipy's symmetric indefinite calls as a user makes them (?sysv_, ?sytrf_ through scipy):

    python3 bench/sym_solve.py [n (8192)] [reps (3)]
    cudrop-run python3 bench/sym_solve.py 8192

One line per case: the median time and a checksum of the result (a relative residual for the
solves, so that runs on different libraries compare).
"""
import sys
import time

import numpy as np
import scipy.linalg as sla
from scipy.linalg import lapack


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 8192
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    rng = np.random.default_rng(11)
    a = rng.standard_normal((n, n))
    sym = a + a.T
    b = rng.standard_normal((n, 64))

    def case(name, f, check):
        times, out = [], None
        for _ in range(reps):
            t = time.perf_counter()
            out = f()
            times.append(time.perf_counter() - t)
        times.sort()
        print(f"sym_solve case={name} n={n} median_s={times[len(times) // 2]:.4f} min_s={times[0]:.4f} "
              f"check={check(out):.3e}", flush=True)

    def residual(x):
        return float(np.linalg.norm(sym @ x - b) / (np.linalg.norm(sym) * np.linalg.norm(x)))

    case("scipy.solve(sym)", lambda: sla.solve(sym, b, assume_a="sym"), residual)
    case("scipy.solve(sym,lower)", lambda: sla.solve(sym, b, assume_a="sym", lower=True), residual)
    m = n // 2
    # scipy's dsytrf wrapper at n/2: the wheel's xSYTRF there takes a minute at 8192.
    half = np.ascontiguousarray(sym[:m, :m])
    case(f"dsytrf(U,{m})", lambda: lapack.dsytrf(half, lower=0)[1], lambda ipiv: float(np.sum(ipiv < 0)))
    case(f"dsytrf(L,{m})", lambda: lapack.dsytrf(half, lower=1)[1], lambda ipiv: float(np.sum(ipiv < 0)))
    z = rng.standard_normal((m, m)) + 1j * rng.standard_normal((m, m))
    h = z + z.conj().T
    case(f"zhetrf(U,{m})", lambda: lapack.zhetrf(h, lower=0)[1], lambda ipiv: float(np.sum(ipiv < 0)))
    case(f"ldl({m})", lambda: sla.ldl(sym[:m, :m])[1], lambda d: float(np.abs(d).sum()))


if __name__ == "__main__":
    main()
