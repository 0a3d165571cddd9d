"""numpy/scipy with cudrop standing in as the system's libblas.so.3 and liblapack.so.3.

    numpy_standin.py STANDIN_DIR [--rtol R]

Runs the same seeded computations (matmul in float and double, solve, LU, Cholesky, SVD,
eigenvalues of a general and of a symmetric matrix) twice, each in a child process: once as the
system has it and once with STANDIN_DIR first on LD_LIBRARY_PATH. The second child must have
cudrop (libcudrop_full) mapped and the first must not; every result must agree within RTOL
(relative to the largest entry of the result), and the largest differences are printed.
With CUDROP_MODE=gpu the stand-in run must also have made GPU calls and no fallback.
Exit 0 pass, 1 fail, 77 skipped (no numpy/scipy, a numpy that does not use the system BLAS, or
CUDROP_MODE=gpu without a GPU).
"""
import re
import shutil
import os
import subprocess
import sys
import tempfile

SKIP = 77


def skip(why):
    print(f"numpy_standin: skipped: {why}")
    sys.exit(SKIP)


def mapped_libraries():
    with open("/proc/self/maps") as maps:
        return {line.split()[-1] for line in maps if "/" in line}


def compute(out_path):
    """The child: every computation on the same seeded inputs, saved with what was loaded."""
    import numpy as np
    import scipy.linalg as sla

    rng = np.random.default_rng(20261125)
    n = 200
    a = rng.standard_normal((n, n))
    b = rng.standard_normal((n, n))
    rhs = rng.standard_normal((n, 3))
    spd = a @ a.T + n * np.eye(n)
    sym = (a + a.T) / 2
    results = {
        "matmul_d": a @ b,
        "matmul_s": a.astype(np.float32) @ b.astype(np.float32),
        "matmul_z": (a + 1j * b) @ (b - 1j * a),
        "solve": np.linalg.solve(a, rhs),
        "cholesky": np.linalg.cholesky(spd),
        "svd": np.linalg.svd(a, compute_uv=False),
        "eigvals": np.sort_complex(np.linalg.eigvals(a)),
        "eigh": np.linalg.eigh(sym)[0],
        "scipy_solve": sla.solve(a, rhs),
        "scipy_cho": sla.cho_factor(spd)[0],
        "scipy_svd": sla.svdvals(a),
        "scipy_eigh": sla.eigh(sym, eigvals_only=True),
    }
    p, l, u = sla.lu(a)
    results.update(lu_p=p, lu_l=l, lu_u=u)
    libs = sorted(x for x in mapped_libraries()
                  if any(k in os.path.basename(x) for k in ("blas", "lapack", "cudrop")))
    np.savez(out_path, libs=np.array(libs), **results)


def run_child(env_extra, out_path):
    env = dict(os.environ, **env_extra)
    proc = subprocess.run([sys.executable, __file__, "--child", out_path], env=env,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        print(proc.stdout + proc.stderr)
        print(f"numpy_standin: FAIL: the child ({env_extra or 'no stand-in'}) exited {proc.returncode}")
        sys.exit(1)
    # cudrop's verbose lines naming each CPU routine it resolved are many; keep the rest.
    sys.stderr.write("".join(line for line in proc.stderr.splitlines(True)
                             if not line.startswith("cudrop: CPU ")))
    return proc.stderr


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        compute(sys.argv[2])
        return 0
    args = sys.argv[1:]
    rtol = 1e-12
    if "--rtol" in args:
        i = args.index("--rtol")
        rtol = float(args[i + 1])
        del args[i:i + 2]
    if len(args) != 1:
        print(__doc__)
        return 2
    standin = os.path.abspath(args[0])
    try:
        import numpy as np
        import scipy.linalg  # noqa: F401
    except ImportError as e:
        skip(f"{e.name} is not installed for {sys.executable} (apt-get install python3-numpy python3-scipy)")

    gpu_mode = os.environ.get("CUDROP_MODE", "").lower() == "gpu"
    if gpu_mode:
        smi = shutil.which("nvidia-smi")
        listed = subprocess.run([smi, "-L"], capture_output=True, text=True).stdout if smi else ""
        if not re.search(r"^GPU ", listed, re.M):
            skip("CUDROP_MODE=gpu and no GPU (nvidia-smi -L lists none)")

    with tempfile.TemporaryDirectory() as tmp:
        plain, stood = os.path.join(tmp, "plain.npz"), os.path.join(tmp, "standin.npz")
        env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
        os.environ.clear()
        os.environ.update(env)
        run_child({}, plain)
        ld = standin + (":" + env["LD_LIBRARY_PATH"] if "LD_LIBRARY_PATH" in env else "")
        log = run_child({"LD_LIBRARY_PATH": ld, "CUDROP_VERBOSE": "1"}, stood)
        ref, got = np.load(plain), np.load(stood)
        ref_libs, got_libs = list(ref["libs"]), list(got["libs"])
        print("without the stand-in:", " ".join(ref_libs))
        print("with the stand-in:   ", " ".join(got_libs))
        if not any("libblas.so.3" in x or "liblapack.so.3" in x for x in ref_libs):
            skip("this numpy/scipy does not load the system libblas.so.3/liblapack.so.3 "
                 "(a wheel with its own OpenBLAS?): use Debian's python3-numpy python3-scipy")
        failures = []
        if any("cudrop" in x for x in ref_libs):
            failures.append("cudrop was loaded without the stand-in")
        if not any("libcudrop_full" in x for x in got_libs):
            failures.append("cudrop (libcudrop_full) was not loaded with the stand-in")
        summary = re.search(r"^cudrop: summary: gpu_calls=(\d+) cpu_calls=(\d+) gpu_fallbacks=(\d+)( inner_calls=\d+)?$", log, re.M)
        if summary is None:
            failures.append("no 'cudrop: summary:' line from the stand-in run")
        elif gpu_mode and (int(summary.group(1)) == 0 or int(summary.group(3)) != 0):
            failures.append(f"gpu mode, but {summary.group(0)}")
        elif not gpu_mode and int(summary.group(1)) != 0:
            failures.append(f"not gpu mode, but {summary.group(0)}")
        for name in ref.files:
            if name == "libs":
                continue
            r, g = ref[name], got[name]
            scale = max(float(np.max(np.abs(r))), np.finfo(r.dtype).tiny)
            diff = float(np.max(np.abs(r - g))) / scale
            ok = r.shape == g.shape and np.allclose(g, r, rtol=0, atol=rtol * scale)
            print(f"  {name:12s} {str(r.dtype):10s} max |difference| / max |entry| = {diff:.3g}"
                  f"{'' if ok else '  FAIL'}")
            if not ok:
                failures.append(f"{name} differs by {diff:.3g} (tolerance {rtol:g})")
        if failures:
            print("numpy_standin: FAIL: " + "; ".join(failures))
            return 1
        print(f"numpy_standin: PASS ({len(ref.files) - 1} results agree within {rtol:g})")
        return 0


if __name__ == "__main__":
    sys.exit(main())
