"""The first large call of a process against the next ones: what CUDA's start costs a program.

    python3 bench/first_call.py [matmul|solve|cholesky|eigh] [n] [calls]
    cudrop-run python3 bench/first_call.py matmul 2048

Prints each call's time (fresh random operands each call, made before the clock starts) and the
first call's extra cost over the median of the others. Run each case in a fresh process.
"""
import sys
import time

import numpy as np


def main():
    step = sys.argv[1] if len(sys.argv) > 1 else "matmul"
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 2048
    calls = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    rng = np.random.default_rng(7)
    times = []
    for _ in range(calls):
        a = rng.standard_normal((n, n))
        if step == "matmul":
            b = rng.standard_normal((n, n))
            f = lambda: a @ b
        elif step == "solve":
            b = rng.standard_normal((n, 16))
            f = lambda: np.linalg.solve(a, b)
        elif step == "cholesky":
            s = a @ a.T / n + np.eye(n)
            f = lambda: np.linalg.cholesky(s)
        elif step == "eigh":
            s = a + a.T
            f = lambda: np.linalg.eigh(s)
        else:
            sys.exit("unknown step " + step)
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    rest = float(np.median(times[1:])) if calls > 1 else 0.0
    print(f"first_call {step} n={n}: " + " ".join(f"{x:.4f}" for x in times) +
          f" s; first - median(rest) = {times[0] - rest:.4f} s")


if __name__ == "__main__":
    main()
