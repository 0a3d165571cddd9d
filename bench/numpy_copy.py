# bench/numpy_copy.py: the numpy calls whose time is mostly numpy's own copies into and out of
# Fortran order (one strided ?copy_ per row, numpy/linalg/umath_linalg.cpp), one line each:
#   python3 bench/numpy_copy.py [reps (3)] [n (8192)]
# Run it plain, under `CUDROP_MODE=cpu cudrop-run` (every routine the CPU library's: the copies
# alone differ) and under `cudrop-run`: the median of reps, and the crc32 of the result, which
# must be the plain run's in CPU mode (the same routines underneath, the same copies).
import sys, time, zlib
import numpy as np

reps = int(sys.argv[1]) if len(sys.argv) > 1 else 3
n = int(sys.argv[2]) if len(sys.argv) > 2 else 8192
rng = np.random.default_rng(7)
a = rng.standard_normal((n, n))
spd = a @ a.T / n + np.eye(n)
rhs = rng.standard_normal((n, 64))
half = n // 2
a_half = np.ascontiguousarray(a[:half, :half])


def case(name, f):
    times, result = [], None
    for _ in range(reps):
        t = time.perf_counter()
        result = f()
        times.append(time.perf_counter() - t)
    times.sort()
    crc = zlib.crc32(np.ascontiguousarray(result).tobytes())
    print(f"numpy_copy case={name} n={n} median_s={times[len(times) // 2]:.4f} min_s={times[0]:.4f} crc32={crc:08x}",
          flush=True)


case(f"solve({n},64)", lambda: np.linalg.solve(a, rhs))
case(f"inv({half})", lambda: np.linalg.inv(a_half))
case(f"inv({n})", lambda: np.linalg.inv(a))
case(f"cholesky({n})", lambda: np.linalg.cholesky(spd))
case(f"asfortranarray({n})", lambda: np.asfortranarray(a))
