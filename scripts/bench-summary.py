#!/usr/bin/env python3
"""Turns the raw lines of scripts/gpu-check's bench.txt into the short tables it prints last."""
import re
import sys
from collections import defaultdict


def fields(line):
    return dict(re.findall(r"(\w+)=([^\s]+)", line))


def main(path):
    device, cross, e2e, other, notes, dispatch = [], defaultdict(dict), defaultdict(dict), [], [], []
    for line in open(path, errors="replace"):
        line = line.strip()
        if not line:
            continue
        head = line.split()[0]
        f = fields(line)
        if head == "device_gemm":
            device.append((line.split()[1], line.split()[2], f))
        elif head in ("cpu_blas", "cudrop_gpu", "cudrop_auto"):
            cross[(line.split()[1], int(f["n"]))][head] = float(f["seconds"])
        elif head == "dispatch" and "n" in f:
            dispatch.append((line.split()[1], f))
        elif head == "dispatch":
            notes.append(line)
        elif head in ("cudrop_e2e", "nvblas_e2e", "cudrop_e2e_3xtf32"):
            e2e[(line.split()[1], int(f["n"]))][head] = float(f["gflops"]) / 1e3
        elif head == "host_copy_cublas":
            e2e[(line.split()[1], int(f["n"]))][head] = float(f["tflops"])
        elif line.startswith("device:") or line.startswith("cudrop: CPU"):
            notes.append(line)
        else:
            other.append(line)
    for note in sorted(set(notes)):
        print("  " + note)
    if device:
        print("  device-only GEMM (TFLOPS, median, same run):")
        print("    prec op  m x n x k            cudrop  cuBLAS  ratio  maxdiff   (ratio = cuBLAS time / cudrop's)")
        for prec, op, f in device:
            shape = f"{f['m']}x{f['n']}x{f['k']}" + (" C-=AB" if f.get("beta") == "1" else "")
            print(f"    {prec}    {op}  {shape:<20} {float(f['cudrop_tflops']):6.2f}  {float(f['cublas_tflops']):6.2f}"
                  f"  {float(f['ratio']):5.2f}  {f['maxdiff_rel']}")
    if cross:
        print("  dispatch crossover (host->host ms per call: CPU BLAS underneath / cudrop forced GPU / cudrop auto):")
        for prec in ("s", "d", "c", "z"):
            rows = sorted(n for p, n in cross if p == prec)
            first_win = None
            for n in rows:
                c = cross[(prec, n)]
                cpu, gpu, auto = (c.get(k) for k in ("cpu_blas", "cudrop_gpu", "cudrop_auto"))
                fmt = lambda x: f"{x * 1e3:9.3f}" if x is not None else "        -"
                print(f"    {prec} n={n:<5} {fmt(cpu)} {fmt(gpu)} {fmt(auto)}")
                if cpu is not None and gpu is not None and gpu < cpu and first_win is None:
                    first_win = n
            print(f"    {prec}: GPU first faster at n={first_win}")
    if dispatch:
        print("  auto mode's cost, one process (us per call, medians): CPU BLAS direct / cudrop auto, ratio (direct"
              " time / cudrop's), where")
        for prec, f in dispatch:
            print(f"    {prec} n={f['n']:<5} {float(f['direct_us']):9.3f} {float(f['cudrop_us']):9.3f}"
                  f"  {float(f['ratio']):5.3f}  {f['cudrop_on']}  {f.get('loaded', '')}")
    if e2e:
        print("  host->host GEMM, pageable arrays (TFLOPS): cudrop / NVBLAS / copy+cuBLAS+copy / cudrop 3xtf32")
        for (prec, n), c in sorted(e2e.items()):
            fmt = lambda k: f"{c[k]:6.2f}" if k in c else "     -"
            print(f"    {prec} n={n:<6} {fmt('cudrop_e2e')} {fmt('nvblas_e2e')} {fmt('host_copy_cublas')}"
                  f" {fmt('cudrop_e2e_3xtf32')}")
    for line in other[:40]:
        print("  " + line)


if __name__ == "__main__":
    main(sys.argv[1])
