# bench/eigh_program.py: a whole eigen analysis as a numpy/scipy user writes it (python3 bench/eigh_program.py [n]);
# run it plain and under cudrop-run: each step's time, a checksum (the same both ways), the total.
import sys, time
t_start = time.time()
import numpy as np, scipy.linalg as sl
n = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
rng = np.random.default_rng(1)
a = rng.standard_normal((n, n)); a = a + a.T
b = rng.standard_normal((n, n)); b = b @ b.T / n + np.eye(n)
steps = []
def step(name, f, check):
    t = time.time(); r = f(); dt = time.time() - t
    steps.append((name, dt, check(r)))
step("numpy eigh", lambda: np.linalg.eigh(a), lambda r: float(np.abs(r[0]).sum()))
step("numpy eigvalsh", lambda: np.linalg.eigvalsh(a), lambda r: float(np.abs(r).sum()))
step("scipy eigh (evr)", lambda: sl.eigh(a), lambda r: float(np.abs(r[0]).sum()))
step("scipy eigh evd", lambda: sl.eigh(a, driver="evd"), lambda r: float(np.abs(r[0]).sum()))
step("scipy eigh(a,b)", lambda: sl.eigh(a, b), lambda r: float(np.abs(r[0]).sum()))
step("scipy eigvalsh subset", lambda: sl.eigh(a, eigvals_only=True, subset_by_index=[0, n // 20]), lambda r: float(np.abs(r).sum()))
for name, dt, c in steps:
    print(f"{name:24s} {dt:7.3f} s  checksum {c:.6e}")
print(f"{'total (with imports)':24s} {time.time() - t_start:7.3f} s")
