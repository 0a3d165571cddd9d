"""cudrop-bench --seeds: the experiments cudrop started from, rerun on today's GPU beside cudrop's
own routines (docs/seeds.md says what each one measures and how to read its table).

  1. GEMM n=4096, s and d: a naive CPU triple loop (cudrop-seeds-cpu naive: i-j-l, -O2, one
     thread; timed on C's first 64 columns and scaled to all n, marked extrapolated, unless
     --naive-full), the CPU BLAS and cudrop host->host (cudrop-host-gemm), cudrop device-only
     (cudrop-device-bench).
  2. Power method on CSR matrices of 100k .. 2M rows, 5/20/50 nonzeros per row, double, x0 =
     ones, TOL 1e-10, until convergence: a single-threaded C loop (cudrop-seeds-cpu power) against
     cudrop's device loop and public cudrop_dcsrpower_ (cudrop-seeds-gpu power).
  3. LU on the GPU, n = 1024, 2048, 4096: getrf_device blocked (tuned nb) vs unblocked (nb = 1).
  4. Cholesky on the GPU, n = 4096, 8192: block width 4..64, left- vs right-looking (a bench-only
     driver over the library's device functions), and the library's potrf_device.
--quick: small sizes (CPU rows in seconds). Without a GPU the GPU rows are skipped, with one
notice. Outputs in --out: seeds.txt (the tables), raw.txt (the programs' lines, with date,
device and CPU BLAS), logs/; --parse-only FILE rebuilds the tables from such a raw.txt.
"""
import datetime
import os
import re
import shlex
import sys

FULL = {"gemm_n": 4096, "naive_cols": 64, "power_rows": [100000, 500000, 1000000, 2000000],
        "power_per_row": [5, 20, 50], "lu_n": [1024, 2048, 4096], "chol_n": [4096, 8192],
        "chol_nb": [4, 8, 16, 32, 64]}
QUICK = {"gemm_n": 512, "naive_cols": 64, "power_rows": [20000, 100000], "power_per_row": [5, 20],
         "lu_n": [512, 1024], "chol_n": [1024], "chol_nb": [8, 32]}
POWER_PREC, POWER_TOL, POWER_MAXIT = "d", 1e-10, 1000
# Eigenvalues agree when both runs converged and differ by at most this many TOLs (relative):
# both stop within TOL of the same fixed point, by different summation orders.
AGREE_TOLS = 100
KV = re.compile(r"([A-Za-z_]\w*)=(\S+)")
TITLES = {"gemm": "seeds 1: GEMM", "power": "seeds 2: power method (CSR)", "lu": "seeds 3: LU on the GPU",
          "chol": "seeds 4: Cholesky on the GPU"}


def plan(bt, args, build, precs, cpu_blas, have_gpu):
    """The measuring runs: a list of bt.Step (needs_gpu marks the GPU ones), and missing programs."""
    size = QUICK if args.quick else FULL
    exe = lambda name: os.path.join(build, name)
    have = lambda name: os.access(exe(name), os.X_OK)
    lib = exe("libcudrop.so")
    steps, missing = [], []
    n = size["gemm_n"]
    cols = n if args.naive_full else min(n, size["naive_cols"])
    for name in ("cudrop-seeds-cpu", "cudrop-host-gemm", "cudrop-device-bench", "cudrop-seeds-gpu"):
        if not have(name):
            missing.append(name)
    if have("cudrop-seeds-cpu"):
        for p in precs:
            steps.append(bt.Step("gemm", f"seeds gemm {p} n={n} naive CPU loop ({cols} of {n} columns)",
                                 [exe("cudrop-seeds-cpu"), "naive", p, str(n), str(cols), "3"]))
    if have("cudrop-host-gemm"):
        for p in precs:
            if cpu_blas:
                steps.append(bt.Step("gemm", f"seeds gemm {p} n={n} CPU BLAS ({os.path.basename(cpu_blas)})",
                                     [exe("cudrop-host-gemm"), p, str(n), "3"], {"BENCH_BLAS": cpu_blas},
                                     "cpu_blas", "cpu_blas"))
            if os.path.exists(lib):
                steps.append(bt.Step("gemm", f"seeds gemm {p} n={n} cudrop host->host",
                                     [exe("cudrop-host-gemm"), p, str(n), "3"],
                                     {"LD_PRELOAD": lib, "CUDROP_MODE": "gpu"}, "cudrop_e2e", "cudrop_e2e",
                                     needs_gpu=True))
    if have("cudrop-device-bench"):
        steps.append(bt.Step("gemm", f"seeds gemm n={n} cudrop device-only",
                             [exe("cudrop-device-bench"), "--sizes", str(n), "--host-sizes", "", "--reps", "5"],
                             needs_gpu=True))
    for rows in size["power_rows"]:
        for per_row in size["power_per_row"]:
            common = [POWER_PREC, str(rows), str(per_row), repr(POWER_TOL), str(POWER_MAXIT)]
            if have("cudrop-seeds-cpu"):
                steps.append(bt.Step("power", f"seeds power rows={rows} nnz/row={per_row} CPU loop",
                                     [exe("cudrop-seeds-cpu"), "power"] + common))
            if have("cudrop-seeds-gpu"):
                steps.append(bt.Step("power", f"seeds power rows={rows} nnz/row={per_row} cudrop",
                                     [exe("cudrop-seeds-gpu"), "power"] + common + ["3"], needs_gpu=True))
    if have("cudrop-seeds-gpu"):
        for p in precs:
            steps.append(bt.Step("lu", f"seeds lu {p} n={','.join(map(str, size['lu_n']))} nb tuned vs 1",
                                 [exe("cudrop-seeds-gpu"), "lu", p, ",".join(map(str, size["lu_n"])), "3"],
                                 needs_gpu=True))
            for cn in size["chol_n"]:
                steps.append(bt.Step("chol", f"seeds chol {p} n={cn} nb {','.join(map(str, size['chol_nb']))} "
                                     "left/right", [exe("cudrop-seeds-gpu"), "chol", p, str(cn),
                                                    ",".join(map(str, size["chol_nb"])), "3"], needs_gpu=True))
    return steps, missing


def parse(bt, lines):
    """Raw lines -> {"meta": {...}, "gemm": [...], "power": [...], "lu": [...], "chol": [...]}."""
    out = {"meta": {}, "gemm": [], "power": [], "lu": [], "chol": []}
    for line in lines:
        line = line.strip()
        m = re.match(r"(date|device|seeds_cpu_blas|seeds_no_gpu):\s*(.*)", line)
        if m:
            key = {"seeds_cpu_blas": "cpu_blas", "seeds_no_gpu": "no_gpu"}.get(m.group(1), m.group(1))
            value = m.group(2).split(",")[0].strip() if key == "device" else m.group(2).strip()
            if key == "no_gpu" and value == "yes":
                out["meta"][key] = value  # one program that found none is enough
            out["meta"].setdefault(key, value)
            continue
        words = line.split()
        if not words:
            continue
        kv = dict(KV.findall(line))
        prec = words[1] if len(words) > 1 else ""
        if words[0] == "seeds_naive":
            out["gemm"].append({"prec": prec, "impl": "naive", "n": int(kv["n"]), "seconds": float(kv["seconds"]),
                                "gflops": float(kv["gflops"]), "cols": int(kv["cols"]),
                                "extrapolated": kv.get("extrapolated") == "1"})
        elif words[0] in ("seeds_power", "seeds_lu", "seeds_chol"):
            rec = {"prec": prec}
            for k, v in kv.items():
                rec[k] = bt.intval(v) if re.fullmatch(r"-?\d+", v) else (bt.num(v) if bt.num(v) is not None else v)
            out[words[0][len("seeds_"):]].append(rec)
        else:
            for r in bt.parse_line(line)[0]:
                if r["routine"] == "gemm" and r["op"] == "NN" and r["m"] == r["n"] == r["k"] and \
                        r["implementation"] in ("cudrop_device", "cudrop_e2e", "cpu_blas") and r["ms"]:
                    out["gemm"].append({"prec": r["precision"], "impl": r["implementation"], "n": r["n"],
                                        "seconds": r["ms"] / 1e3, "gflops": 2.0 * r["n"] ** 3 / (r["ms"] * 1e6),
                                        "on_gpu": r["extra"].get("on_gpu")})
    return out


def fmt(v, digits=3):
    if v is None:
        return "-"
    if isinstance(v, str):
        return v
    if abs(v) >= 100:
        return f"{v:.1f}"
    return f"{v:.{digits}g}"


def ratio(v):
    return "-" if not v else f"{v:.0f}x" if v >= 100 else f"{v:.3g}x"


def tables(data):
    meta = data["meta"]
    where = (f"device {meta.get('device') or 'none'}, {meta.get('date', 'unknown date')[:10]}, "
             f"CPU BLAS {os.path.basename(meta.get('cpu_blas') or '') or 'none found'}")
    gpu_note = "  (GPU rows skipped: no usable GPU)" if meta.get("no_gpu") == "yes" else ""
    lines = []
    # 1. GEMM
    g = data["gemm"]
    if g:
        n = g[0]["n"]
        lines += ["", f"{TITLES['gemm']} n={n} (2 n^3 flops; {where}){gpu_note}",
                  f"  {'prec':<4} {'implementation':<44} {'seconds':>10} {'GFLOPS':>10} {'x naive':>9} {'x CPU BLAS':>10}"]
        names = {"naive": "naive CPU loop (i-j-l, C, -O2, 1 thread)", "cpu_blas": "CPU BLAS",
                 "cudrop_e2e": "cudrop host->host (public ?gemm_)", "cudrop_device": "cudrop device-only"}
        notes = set()
        for p in ("s", "d"):
            cell = {r["impl"]: r for r in g if r["prec"] == p}
            if not cell:
                continue
            base, blas = cell.get("naive"), cell.get("cpu_blas")
            for impl in ("naive", "cpu_blas", "cudrop_e2e", "cudrop_device"):
                r = cell.get(impl)
                label = names[impl]
                if r and impl == "naive" and r["extrapolated"]:
                    label += " *"
                    notes.add(f"  * extrapolated: timed on C's first {r['cols']} of {r['n']} columns, "
                              f"times {r['n'] / r['cols']:g} (--naive-full runs the whole product)")
                if r and impl == "cudrop_e2e" and str(r.get("on_gpu", "")).lower() in ("no", "0"):
                    label += " (not all on GPU)"
                xn = r["gflops"] / base["gflops"] if r and base else None
                xb = r["gflops"] / blas["gflops"] if r and blas else None
                lines.append(f"  {p:<4} {label:<44} {fmt(r and r['seconds'], 4):>10} {fmt(r and r['gflops']):>10} "
                             f"{ratio(xn):>9} {ratio(xb):>10}")
        lines += sorted(notes)
    # 2. power method
    pw = data["power"]
    if pw:
        lines += ["", f"{TITLES['power']}, {POWER_PREC}, x0 = ones, TOL {POWER_TOL:g}, until convergence "
                  f"({where}){gpu_note}",
                  f"  {'rows':>8} {'nnz/row':>7} {'CPU ms':>10} {'it':>4} {'cudrop dev ms':>13} {'it':>4} "
                  f"{'e2e ms':>10} {'x dev':>7} {'x e2e':>7}  {'lambda CPU':>19} {'lambda cudrop':>19} "
                  f"{'rel diff':>8}  agree"]
        keys = sorted({(r["rows"], r["per_row"]) for r in pw})
        for rows, per_row in keys:
            cell = {r["impl"]: r for r in pw if r["rows"] == rows and r["per_row"] == per_row}
            cpu, dev, e2e = cell.get("cpu"), cell.get("cudrop_device"), cell.get("cudrop_e2e")
            gpu = dev or e2e
            rel = agree = None
            if cpu and gpu:
                rel = abs(cpu["lambda"] - gpu["lambda"]) / max(abs(cpu["lambda"]), abs(gpu["lambda"]), 1e-300)
                agree = "yes" if cpu["info"] == 0 and gpu["info"] == 0 and rel <= AGREE_TOLS * POWER_TOL else "NO"
            x_dev = cpu["ms"] / dev["ms"] if cpu and dev and dev["ms"] else None
            x_e2e = cpu["ms"] / e2e["ms"] if cpu and e2e and e2e["ms"] else None
            flag = "" if not e2e or e2e.get("on_gpu") in (1, None) else "  (e2e not on GPU)"
            lam_cpu = f"{cpu['lambda']:.12e}" if cpu else "-"
            lam_gpu = f"{gpu['lambda']:.12e}" if gpu else "-"
            lines.append(f"  {rows:>8} {per_row:>7} {fmt(cpu and cpu['ms']):>10} {fmt(cpu and cpu['iters']):>4} "
                         f"{fmt(dev and dev['ms']):>13} {fmt(dev and dev['iters']):>4} {fmt(e2e and e2e['ms']):>10} "
                         f"{(f'{x_dev:.1f}x' if x_dev else '-'):>7} {(f'{x_e2e:.1f}x' if x_e2e else '-'):>7}  "
                         f"{lam_cpu:>19} {lam_gpu:>19} {(f'{rel:.1e}' if rel is not None else '-'):>8}  "
                         f"{agree or '-'}{flag}")
        lines.append(f"  x dev / x e2e = CPU time / cudrop time; agree: both converged (INFO 0) and the eigenvalues "
                     f"differ by at most {AGREE_TOLS} TOL (relative)")
    # 3. LU
    lu = data["lu"]
    lines += ["", f"{TITLES['lu']}: getrf_device blocked (nb tuned) vs unblocked (nb = 1), device-only "
              f"({where}){gpu_note}",
              f"  {'prec':<4} {'n':>6} {'blocked ms':>11} {'GFLOPS':>8} {'resid':>7} {'unblocked ms':>13} "
              f"{'GFLOPS':>8} {'resid':>7} {'speedup':>8}"]
    for p, n in sorted({(r["prec"], r["n"]) for r in lu}, key=lambda t: (t[0] != "s", t[1])):
        cell = {r["variant"]: r for r in lu if r["prec"] == p and r["n"] == n}
        b, u = cell.get("blocked"), cell.get("unblocked")
        sp = u["ms"] / b["ms"] if b and u and b["ms"] else None
        bad = [r for r in (b, u) if r and r.get("ok") != 1]
        lines.append(f"  {p:<4} {n:>6} {fmt(b and b['ms']):>11} {fmt(b and b['gflops']):>8} {fmt(b and b['resid'], 2):>7} "
                     f"{fmt(u and u['ms']):>13} {fmt(u and u['gflops']):>8} {fmt(u and u['resid'], 2):>7} "
                     f"{(f'{sp:.1f}x' if sp else '-'):>8}" + ("  RESIDUAL CHECK FAILED" if bad else ""))
    # 4. Cholesky
    ch = data["chol"]
    lines += ["", f"{TITLES['chol']}: block width x loop order, device-only ({where}){gpu_note}",
              f"  {'prec':<4} {'n':>6} {'nb':>5} {'left ms':>10} {'GFLOPS':>8} {'resid':>7} {'right ms':>10} "
              f"{'GFLOPS':>8} {'resid':>7} {'right/left':>10}"]
    for p, n in sorted({(r["prec"], r["n"]) for r in ch}, key=lambda t: (t[0] != "s", t[1])):
        sel = [r for r in ch if r["prec"] == p and r["n"] == n]
        for nb in sorted({r["nb"] for r in sel if r["order"] != "library"}, key=lambda v: (isinstance(v, str), v)):
            cell = {r["order"]: r for r in sel if r["nb"] == nb}
            le, ri = cell.get("left"), cell.get("right")
            sp = le["ms"] / ri["ms"] if le and ri and ri["ms"] else None
            bad = [r for r in (le, ri) if r and r.get("ok") != 1]
            lines.append(f"  {p:<4} {n:>6} {nb:>5} {fmt(le and le['ms']):>10} {fmt(le and le['gflops']):>8} "
                         f"{fmt(le and le['resid'], 2):>7} {fmt(ri and ri['ms']):>10} {fmt(ri and ri['gflops']):>8} "
                         f"{fmt(ri and ri['resid'], 2):>7} {(f'{sp:.2f}x' if sp else '-'):>10}"
                         + ("  RESIDUAL CHECK FAILED" if bad else ""))
        for r in sel:
            if r["order"] == "library":
                lines.append(f"  {p:<4} {n:>6} {'lib':>5} {fmt(r['ms']):>10} {fmt(r['gflops']):>8} "
                             f"{fmt(r['resid'], 2):>7}   the library's potrf_device (its own schedule)"
                             + ("" if r.get("ok") == 1 else "  RESIDUAL CHECK FAILED"))
    lines.append("  right/left = left-looking time / right-looking time (> 1: right-looking faster); resid = "
                 "||A x - L L^T x|| / (n ||A|| ||x|| eps), < 30 passes")
    return "\n".join(lines) + "\n"


def failures(data):
    bad = [f"lu {r['prec']} n={r['n']} {r['variant']}" for r in data["lu"] if r.get("ok") != 1]
    bad += [f"chol {r['prec']} n={r['n']} nb={r['nb']} {r['order']}" for r in data["chol"] if r.get("ok") != 1]
    return [b + ": residual check failed" for b in bad]


def write(out, data, raw):
    os.makedirs(out, exist_ok=True)
    text = tables(data)
    with open(os.path.join(out, "seeds.txt"), "w") as f:
        f.write(text)
    if raw is not None:
        with open(os.path.join(out, "raw.txt"), "w") as f:
            f.write("\n".join(raw) + "\n")
    return text


def main(bt, args, build, out):
    """--seeds: run (or with --parse-only, read) the seeds experiments; tables on stdout."""
    if args.parse_only:
        raw = []
        for path in args.parse_only:
            try:
                with open(path, errors="replace") as f:
                    raw += f.read().splitlines()
            except OSError as e:
                print(f"cudrop-bench: cannot read {path}: {e}", file=sys.stderr)
                return 2
        data = parse(bt, raw)
        print(write(out, data, None), end="")
        return 1 if failures(data) else 0
    precs = [p for p in args.prec if p in "sd"] or ["s", "d"]
    cpu_blas = args.cpu_blas or bt.find_cpu_blas()
    device, _ = bt.nvidia_smi()
    have_gpu = bool(device) and not args.cpu_only
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    steps, missing = plan(bt, args, build, precs, cpu_blas, have_gpu)
    if args.dry_run:
        for i, s in enumerate(steps, 1):
            print(f"[{i}/{len(steps)}] {s.label}\n    " + " ".join(f"{k}={shlex.quote(v)}" for k, v in s.env.items())
                  + (" " if s.env else "") + " ".join(shlex.quote(a) for a in s.argv))
        return 0
    for m in missing:
        print(f"cudrop-bench: {m} not in {build}: its rows are missing", file=sys.stderr)
    if not have_gpu:
        print(f"cudrop-bench: {'--cpu-only' if device else 'no usable GPU on this machine'}: the GPU rows of the seeds tables are skipped "
              f"({sum(s.needs_gpu for s in steps)} of {len(steps)} runs)", file=sys.stderr)
    logdir = os.path.join(out, "logs")
    os.makedirs(logdir, exist_ok=True)
    raw = [f"date: {started}", f"device: {(device if have_gpu else None) or 'none'}", f"seeds_cpu_blas: {cpu_blas or 'none'}",
           f"seeds_no_gpu: {'no' if have_gpu else 'yes'}"]
    run = [s for s in steps if have_gpu or not s.needs_gpu]
    failed = []
    for i, step in enumerate(run, 1):
        lines, _ = bt.run_step(step, i, len(run), args.timeout, logdir, args.verbose)
        if step.status == "skipped (no usable GPU)":
            raw.append("seeds_no_gpu: yes")
        elif step.status != "ok":
            failed.append(f"{step.label}: {step.status}")
        for line in lines:
            if line.startswith("device:"):
                continue  # the one device line is the header's
            if step.raw_head and line.startswith("host_gemm "):
                line = step.raw_head + line[len("host_gemm"):]
            raw.append(line)
    data = parse(bt, raw)
    print(write(out, data, raw), end="")
    print(f"\nwrote {out}/seeds.txt, raw.txt, logs/")
    failed += failures(data)
    if failed:
        print("cudrop-bench: FAILED: " + "; ".join(failed), file=sys.stderr)
        return 1
    return 0
