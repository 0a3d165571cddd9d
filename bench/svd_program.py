# bench/svd_program.py: the SVD and least-squares calls of a numpy/scipy/scikit-learn analysis as a
# user writes them, on one tall matrix (python3 bench/svd_program.py [m] [n] [word,...]; 32768 x 2048
# by default; words: only the steps whose names contain one of them); run it plain and under cudrop-run: each step's time, a checksum (the same both ways
# to the digits printed, as the singular values and solutions are), the total.
import sys, time
t_start = time.time()
import numpy as np, scipy.linalg as sl
m = int(sys.argv[1]) if len(sys.argv) > 1 else 32768
n = int(sys.argv[2]) if len(sys.argv) > 2 else 2048
rng = np.random.default_rng(1)
a = rng.standard_normal((m, n))
b = rng.standard_normal((m, 16))
steps = []
only = sys.argv[3].split(",") if len(sys.argv) > 3 else []
def step(name, f, check):
    if only and not any(w in name for w in only):
        return
    t = time.time(); r = f(); dt = time.time() - t
    steps.append((name, dt, check(r)))
step("numpy svd", lambda: np.linalg.svd(a, full_matrices=False), lambda r: float(r[1].sum()))
step("scipy svdvals", lambda: sl.svdvals(a), lambda r: float(r.sum()))
step("numpy pinv", lambda: np.linalg.pinv(a), lambda r: float(np.abs(r).sum()))
step("numpy lstsq (gelsd)", lambda: np.linalg.lstsq(a, b, rcond=None)[0], lambda r: float(np.abs(r).sum()))
step("scipy lstsq gelsd", lambda: sl.lstsq(a, b)[0], lambda r: float(np.abs(r).sum()))
step("scipy lstsq gelsy", lambda: sl.lstsq(a, b, lapack_driver="gelsy")[0], lambda r: float(np.abs(r).sum()))
step("scipy lstsq gelss", lambda: sl.lstsq(a, b, lapack_driver="gelss")[0], lambda r: float(np.abs(r).sum()))
step("scipy svd gesvd", lambda: sl.svd(a, full_matrices=False, lapack_driver="gesvd"), lambda r: float(r[1].sum()))
try:
    from sklearn.decomposition import PCA
    step("sklearn PCA full", lambda: PCA(n_components=16, svd_solver="full").fit(a).explained_variance_,
         lambda r: float(r.sum()))
except ImportError:
    pass
for name, dt, c in steps:
    print(f"{name:24s} {dt:7.3f} s  checksum {c:.6e}")
print(f"{'total (with imports)':24s} {time.time() - t_start:7.3f} s")
