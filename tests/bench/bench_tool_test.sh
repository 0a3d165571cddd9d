#!/usr/bin/env bash
# bench/cudrop-bench without a GPU:
#  1. --parse-only on a recorded H100 run (tests/bench/data/bench_fixture.txt, gpu-check's bench.txt):
#     the expected records, results.json / .csv / .txt, and a valid PNG (signature, IHDR, CRCs,
#     IDAT inflating to height * (1 + 3 * width) bytes) from the built-in writer;
#  2. lines of other shapes (power, getrf_panel, garbage) parse without error;
#  3. a measuring run against a fake build folder (shell scripts printing the programs' lines),
#     one of which fails: progress, outputs still written, exit status 1;
#  4. the plot's frame holds every point: axes end at or above the largest value, linear and log,
#     and no series pixel lies above the panels (on the title);
#  5. a run without a GPU: exit 0, one notice on stderr, cudrop's host->host rows marked (CPU) in
#     the table, the CSV and the plot;
#  6. --parse-only keeps the measurements' date, device and commit (bench.txt + gpu-check's
#     summary.txt), "unknown" where the raw file does not say;
#  7. CSV times are the raw ms / seconds values exactly.
# usage: bench_tool_test.sh SOURCE_DIR WORK_DIR
set -euo pipefail
SRC=${1:-$(cd "$(dirname "$0")/.." && pwd)}
WORK=${2:-$(mktemp -d)}
PY=$(command -v python3 || true)
[ -n "$PY" ] || { echo "SKIP: no python3"; exit 77; }
TOOL=$SRC/bench/cudrop-bench
FIXTURE=$SRC/tests/bench/data/bench_fixture.txt
rm -rf "$WORK"
mkdir -p "$WORK"

"$PY" "$TOOL" --help >"$WORK/help.txt"
grep -q -- '--parse-only' "$WORK/help.txt"

# ---- 1. the recorded H100 run ----------------------------------------------------------
"$PY" "$TOOL" --parse-only "$FIXTURE" --out "$WORK/fixture" --plot builtin >"$WORK/fixture.stdout"
cat "$WORK/fixture.stdout"

"$PY" - "$WORK/fixture" <<'EOF'
import collections, csv, json, struct, sys, zlib, os
out = sys.argv[1]

def check_png(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "PNG signature"
    pos, chunks = 8, []
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 4:pos + 8 + length]
        crc, = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert zlib.crc32(body) & 0xFFFFFFFF == crc, f"CRC of {kind}"
        chunks.append((kind, data[pos + 8:pos + 8 + length]))
        pos += 12 + length
    assert chunks[0][0] == b"IHDR" and len(chunks[0][1]) == 13, "IHDR first"
    assert chunks[-1][0] == b"IEND", "IEND last"
    w, h, depth, ctype, comp, filt, inter = struct.unpack(">IIBBBBB", chunks[0][1])
    assert 200 <= w <= 8000 and 200 <= h <= 8000, (w, h)
    assert (depth, ctype, comp, filt, inter) == (8, 2, 0, 0, 0), "8-bit RGB"
    raw = zlib.decompress(b"".join(b for k, b in chunks if k == b"IDAT"))
    assert len(raw) == h * (1 + 3 * w), "IDAT size"
    rows = [raw[y * (1 + 3 * w)] for y in range(h)]
    assert all(f in (0, 1, 2, 3, 4) for f in rows), "filter bytes"
    colors = {raw[i:i + 3] for i in range(1, len(raw), 3 * 97 + 1)}
    assert len(colors) > 3, "more than a blank image"
    return w, h

doc = json.load(open(os.path.join(out, "results.json")))
recs = doc["records"]
assert doc["record_count"] == len(recs) == 120, len(recs)
assert doc["device"].startswith("NVIDIA H100"), doc["device"]
for key in ("date", "git_commit", "command_line", "mode"):
    assert key in doc, key
# the fixture names no date or commit: not today's, not this checkout's
assert doc["date"] == "unknown" and doc["git_commit"] == "unknown", (doc["date"], doc["git_commit"])
assert doc["device_sms"] == 132 and doc["no_gpu"] is False, doc["device_sms"]
count = collections.Counter(r["implementation"] for r in recs)
expect = {"cudrop_device": 20, "cublas": 8, "cusolver": 12, "cudrop_e2e": 39, "cudrop_auto": 10,
          "nvblas": 5, "cpu_blas": 22, "copy_cublas": 4}
assert dict(count) == expect, dict(count)
by_routine = collections.Counter(r["routine"] for r in recs)
assert dict(by_routine) == {"gemm": 84, "getrf": 18, "potrf": 18}, dict(by_routine)
for r in recs:
    assert r["precision"] in ("s", "d"), r
    assert r["ms"] is not None and r["ms"] >= 0 and r["tflops"] is not None and r["tflops"] > 0, r
# exact values from the fixture's lines
def find(**kw):
    hits = [r for r in recs if all(r[k] == v for k, v in kw.items())]
    assert len(hits) == 1, (kw, hits)
    return hits[0]
r = find(routine="gemm", precision="d", op="NN", n=8192, implementation="cublas")
assert r["tflops"] == 60.92 and r["ms"] == 18.047 and r["mode"] == "device"
r = find(routine="gemm", precision="s", op="NN", m=16384, k=256, implementation="cudrop_device")
assert r["shape"] == "16384x16384x256" and r["extra"]["maxdiff_rel"] == 0.0
r = find(routine="gemm", precision="s", n=16384, implementation="nvblas")
assert abs(r["tflops"] - 5.27306) < 1e-6 and abs(r["ms"] - 1668.1) < 1.0 and r["mode"] == "host"
r = find(routine="getrf", precision="s", n=8192, implementation="cudrop_e2e")
assert r["ms"] == 70.36 and r["tflops"] == 5.21 and r["extra"]["on_gpu"] == "yes"
assert r["extra"]["updates_gemm_ms"] == 22.23 and r["extra"]["ipiv_agree"] == "5300/8192"
r = find(routine="getrf", precision="d", n=16384, implementation="cudrop_device")
assert r["ms"] == 315.16 and r["tflops"] == 9.30
r = find(routine="potrf", precision="d", n=16384, implementation="cusolver")
assert r["ms"] == 37.63 and r["tflops"] == 38.96 and r["op"] == "L"
r = find(routine="potrf", precision="s", n=4096, implementation="cudrop_e2e")
assert r["extra"]["on_gpu"] == "no" and "WARNING" in r["extra"]["warning"]
assert "on_gpu" not in find(routine="potrf", precision="s", n=4096, implementation="cudrop_device")["extra"]

rows = list(csv.DictReader(open(os.path.join(out, "results.csv"))))
assert len(rows) == 120, len(rows)
assert set(rows[0]) >= {"routine", "precision", "n", "implementation", "ms", "tflops"}
assert collections.Counter(r["implementation"] for r in rows) == count

w, h = check_png(os.path.join(out, "results.png"))
desc = open(os.path.join(out, "results.png.txt")).read()
assert "panel gemm s" in desc and "panel potrf d" in desc and "built-in" in desc, desc
text = open(os.path.join(out, "results.txt")).read()
for needle in ("gemm device-only", "gemm host->host", "getrf device-only", "potrf host->host", "cuSOLVER",
               "NVBLAS", "CPU BLAS"):
    assert needle in text, needle
print(f"fixture: 120 records, CSV, tables, PNG {w}x{h}: ok")
EOF

# ---- 2. other line shapes ----------------------------------------------------------------
cat >"$WORK/other.txt" <<'EOF'
device: NVIDIA H100 80GB HBM3, 132 SMs
power s dense n=16384 maxit=100 cudrop_ms=36.7 cudrop_gbs=2926 info=1
power d csr n=2097152 nnz_row=16 cudrop_dev_ms=35.3 cudrop_dev_gbs=808 cusparse_ms=30.1 cusparse_gbs=950
getrf_panel s m=8192 nb=128 ms=1.234 us_per_col=9.64
power s dense n=abc
garbage = line
getrf bench: no usable GPU
crossover mode=cpu getrf s n=512 cudrop_e2e_ms=1.50 cudrop_tflops=0.06 cudrop_dev_ms=0.90 cudrop_dev_tflops=0.10 updates_gemm_ms=0.1 cusolver_ms=0.50 cusolver_tflops=0.18 ratio=0.33 on_gpu=NO resid=0.003 info=0/0 ipiv_agree=512/512
crossover mode=gpu getrf s n=512 cudrop_e2e_ms=3.00 cudrop_tflops=0.03 cudrop_dev_ms=0.90 cudrop_dev_tflops=0.10 updates_gemm_ms=0.1 cusolver_ms=0.50 cusolver_tflops=0.18 ratio=0.17 on_gpu=yes resid=0.003 info=0/0 ipiv_agree=512/512
EOF
"$PY" "$TOOL" --parse-only "$WORK/other.txt" --out "$WORK/other" --plot builtin >"$WORK/other.stdout"
"$PY" - "$WORK/other" <<'EOF'
import json, os, sys
doc = json.load(open(os.path.join(sys.argv[1], "results.json")))
impls = sorted((r["routine"], r["implementation"]) for r in doc["records"])
assert impls == [("getrf", "cpu_lapack"), ("getrf", "cudrop_e2e"), ("getrf_panel", "cudrop_device"),
                 ("power", "cudrop_device"), ("power", "cudrop_e2e"), ("power", "cusparse")], impls
cpu = [r for r in doc["records"] if r["implementation"] == "cpu_lapack"][0]
assert cpu["ms"] == 1.5 and cpu["extra"]["cudrop_mode"] == "cpu" and "on_gpu" not in cpu["extra"], cpu
assert len(doc["unparsed_lines"]) == 2, doc["unparsed_lines"]
assert os.path.getsize(os.path.join(sys.argv[1], "results.png")) > 100
print("other line shapes: ok")
EOF

# ---- 3. a measuring run against fake programs ------------------------------------------
FAKE=$WORK/fake-build
mkdir -p "$FAKE"
: >"$FAKE/libcudrop.so"   # only named in LD_PRELOAD; the fake client is a shell script
cat >"$FAKE/cudrop-device-bench" <<EOF
#!/bin/sh
grep -E '^(device:|device_gemm [sd] NN m=4096 |host_copy_cublas [sd] n=4096 )' "$FIXTURE"
EOF
cat >"$FAKE/cudrop-host-gemm" <<'EOF'
#!/bin/sh
# $1 prec, $2 n, $3 reps; which peer: from the environment the tool sets
case "${BENCH_BLAS:-}:${CUDROP_MODE:-}" in
  :gpu) g=9000 ;; ?*:) g=800 ;; *) g=1 ;;
esac
echo "host_gemm $1 n=$2 seconds=0.010000 gflops=$g checksum=1.0e+00"
EOF
cat >"$FAKE/cudrop-getrf-bench" <<EOF
#!/bin/sh
grep -E '^(device:|getrf s n=4096 )' "$FIXTURE"
[ "\${CUDROP_MODE:-}" = cpu ] && exit 0
echo "fake failure" >&2
exit 3
EOF
chmod +x "$FAKE"/cudrop-*
set +e
"$PY" "$TOOL" --build "$FAKE" --routines gemm,getrf --sizes 4096 --prec s --peers cublas,cusolver,cpu_blas \
  --cpu-blas /dev/null --cpu-max-n 8192 --plot builtin --out "$WORK/run" >"$WORK/run.stdout" 2>"$WORK/run.stderr"
rc=$?
set -e
cat "$WORK/run.stderr"
[ $rc = 1 ] || { echo "FAIL: exit status $rc, expected 1 (a measuring program failed)"; exit 1; }
grep -q '^\[1/5\] gemm s,d n=4096 device-only' "$WORK/run.stderr"
grep -q '^\[3/5\] gemm s n=4096 via cpu_blas' "$WORK/run.stderr"
grep -q '^\[5/5\] getrf s n=4096 via cpu_lapack' "$WORK/run.stderr"
grep -q 'failed (exit 3)' "$WORK/run.stderr"
"$PY" - "$WORK/run" <<'EOF'
import json, os, sys
out = sys.argv[1]
doc = json.load(open(os.path.join(out, "results.json")))
impls = sorted(r["implementation"] for r in doc["records"])
# the device bench measures both precisions whatever --prec says
assert impls == sorted(["copy_cublas"] * 2 + ["cublas"] * 2 + ["cudrop_device"] * 3 + ["cudrop_e2e"] * 2 +
                       ["cpu_blas", "cusolver", "cpu_lapack"]), impls
assert [s["status"] for s in doc["runs"]] == ["ok", "ok", "ok", "failed (exit 3)", "ok"], doc["runs"]
assert len(doc["failures"]) == 1 and doc["device"], doc
e2e = [r for r in doc["records"] if r["implementation"] == "cudrop_e2e" and r["routine"] == "gemm"][0]
assert e2e["tflops"] == 9.0, e2e
for name in ("results.csv", "results.png", "results.txt", "raw.txt"):
    assert os.path.getsize(os.path.join(out, name)) > 0, name
raw = open(os.path.join(out, "raw.txt")).read()
assert "cudrop_e2e s n=4096" in raw and "cpu_blas s n=4096" in raw, raw
assert "crossover mode=cpu getrf s n=4096" in raw, raw
text = open(os.path.join(out, "results.txt")).read()
assert "CPU LAPACK" in text and "cuSOLVER dev" in text, text
print("measuring run with a failing program: ok")
EOF

# ---- shared: PNG pixels -------------------------------------------------------------------
cat >"$WORK/pngread.py" <<'EOF'
import struct, zlib
def pixels(path):
    """(width, height, rows of RGB tuples) of an 8-bit RGB PNG with filter 0 rows (the built-in writer's)."""
    data = open(path, "rb").read()
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            w, h = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = 1 + 3 * w
    rows = []
    for y in range(h):
        assert raw[y * stride] == 0, "filter 0"
        row = raw[y * stride + 1:(y + 1) * stride]
        rows.append([tuple(row[i:i + 3]) for i in range(0, len(row), 3)])
    return w, h, rows
EOF

# ---- 4. every point inside the frame ------------------------------------------------------
# 1.9 is the largest value: a linear axis ending at the last round tick below 1.05 x max (1.5)
# drew it far above the frame, on the title; the second panel spans > 50x (log axis).
cat >"$WORK/frame.txt" <<'EOF'
cudrop_e2e s n=64 seconds=0.000459 gflops=1.14 checksum=1
cudrop_e2e s n=8192 seconds=0.068872 gflops=15964.60 checksum=1
device_gemm d NN m=4096 n=4096 k=4096 cudrop_ms=137.4 cudrop_tflops=1.0 cublas_ms=114.5 cublas_tflops=1.2 ratio=0.83
device_gemm d NN m=8192 n=8192 k=8192 cudrop_ms=733.0 cudrop_tflops=1.5 cublas_ms=578.7 cublas_tflops=1.9 ratio=0.79
EOF
"$PY" "$TOOL" --parse-only "$WORK/frame.txt" --out "$WORK/frame" --plot builtin >/dev/null
"$PY" - "$SRC/bench" "$WORK" <<'EOF'
import os, re, sys
sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[2])
import pngplot, pngread
# the axis ranges themselves
for top in (1.9, 60.92, 57.2, 1.0, 0.97, 95.3, 0.0013, 9.7, 100.0):
    ax = pngplot.axes({"series": [{"points": [(1024, top / 3), (4096, top)]}]})
    assert not ax["ylog"] and ax["y"][0] == 0 and ax["y"][1] >= top and ax["yticks"][-1] == ax["y"][1], (top, ax)
ax = pngplot.axes({"series": [{"points": [(64, 0.00114), (8192, 15.9646)]}]})
assert ax["ylog"] and ax["y"][0] <= 0.00114 and ax["y"][1] >= 15.9646, ax
ax = pngplot.axes({"series": [{"points": [(64, -2.0), (8192, 3.0)]}]})
assert ax["y"][0] <= -2.0 and ax["y"][1] >= 3.0, ax
# the plot the tool drew: its description states each panel's y range
desc = open(os.path.join(sys.argv[2], "frame", "results.png.txt")).read()
spans = dict(re.findall(r"panel (gemm [sd]) .*?y axis ([0-9.e+-]+\.\.[0-9.e+-]+)", desc))
lo, hi = map(float, spans["gemm d"].split(".."))
assert lo <= 1.0 and hi >= 1.9, spans
assert float(spans["gemm s"].split("..")[1]) >= 15.9646 and "log" in desc, desc
# no series pixel above the panels' frames: the title band holds only the black title on white
w, h, rows = pngread.pixels(os.path.join(sys.argv[2], "frame", "results.png"))
band = {p for row in rows[:44] for p in row}
assert band <= {(255, 255, 255), (0, 0, 0)}, band - {(255, 255, 255), (0, 0, 0)}
# the largest point is drawn: cuBLAS's green is in the image
assert any((44, 160, 44) in row for row in rows[44:]), "cuBLAS series missing"
print("frame: every point inside, linear and log axes: ok")
EOF

# ---- 5. no GPU ----------------------------------------------------------------------------
NOGPU=$WORK/nogpu-build
mkdir -p "$NOGPU" "$WORK/nogpu-bin"
: >"$NOGPU/libcudrop.so"
cat >"$WORK/nogpu-bin/nvidia-smi" <<'EOF'
#!/bin/sh
echo "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver." >&2
exit 9
EOF
cat >"$NOGPU/cudrop-device-bench" <<'EOF'
#!/bin/sh
echo "CUDA error: no CUDA-capable device is detected" >&2
exit 1
EOF
cat >"$NOGPU/cudrop-host-gemm" <<'EOF'
#!/bin/sh
case "${BENCH_BLAS:-}" in ?*) g=800 ;; *) g=780 ;; esac
echo "host_gemm $1 n=$2 seconds=0.171799 gflops=$g checksum=1.0e+00"
EOF
cat >"$NOGPU/cudrop-getrf-bench" <<'EOF'
#!/bin/sh
echo "getrf bench: no usable GPU"
EOF
cat >"$NOGPU/cudrop-potrf-bench" <<'EOF'
#!/bin/sh
echo "potrf bench: no usable GPU"
exit 77
EOF
chmod +x "$NOGPU"/cudrop-* "$WORK/nogpu-bin/nvidia-smi"
set +e
PATH=$WORK/nogpu-bin:$PATH "$PY" "$TOOL" --build "$NOGPU" --routines gemm,getrf,potrf --sizes 4096 --prec s \
  --peers cpu_blas --cpu-blas /dev/null --cpu-max-n 8192 --plot builtin --out "$WORK/nogpu" \
  >"$WORK/nogpu.stdout" 2>"$WORK/nogpu.stderr"
rc=$?
set -e
[ $rc = 0 ] || { cat "$WORK/nogpu.stderr"; echo "FAIL: no-GPU run exit status $rc, expected 0"; exit 1; }
[ "$(grep -c 'no usable GPU on this machine' "$WORK/nogpu.stderr")" = 1 ] ||
  { cat "$WORK/nogpu.stderr"; echo "FAIL: no single no-GPU notice on stderr"; exit 1; }
grep 'no usable GPU on this machine' "$WORK/nogpu.stderr" | grep -q 'device-only measurements were skipped'
! grep -q FAILED "$WORK/nogpu.stderr"
"$PY" - "$WORK/nogpu" "$WORK" <<'EOF'
import csv, json, os, sys
sys.path.insert(0, sys.argv[2])
import pngread
out = sys.argv[1]
doc = json.load(open(os.path.join(out, "results.json")))
assert doc["no_gpu"] is True and not doc["failures"], doc["failures"]
# device bench (fails), gemm via cudrop, via the CPU BLAS, getrf, getrf on the CPU, potrf, potrf on the CPU
no = "skipped (no usable GPU)"
assert [s["status"] for s in doc["runs"]] == [no, "ok", "ok", no, no, no, no], [s["status"] for s in doc["runs"]]
where = sorted((r["implementation"], r["ran_on"]) for r in doc["records"])
assert where == [("cpu_blas", "CPU"), ("cudrop_e2e", "CPU")], where
rows = list(csv.DictReader(open(os.path.join(out, "results.csv"))))
assert sorted((r["implementation"], r["ran_on"]) for r in rows) == where, rows
text = open(os.path.join(out, "results.txt")).read()
row = [l for l in text.splitlines() if l.strip().startswith("s ") and "4096" in l]
assert len(row) == 1 and row[0].rstrip().endswith("(CPU)"), text
assert "no usable GPU" in text, text
desc = open(os.path.join(out, "results.png.txt")).read()
assert "cudrop e2e (CPU)" in desc and "marker cross" in desc, desc
w, h, rows = pngread.pixels(os.path.join(out, "results.png"))
legend = {p for row in rows[h - 40:] for p in row}
assert (255, 127, 14) in legend, "cudrop e2e (CPU) legend entry"
print("no GPU: exit 0, notice, (CPU) rows in table, CSV and plot: ok")
EOF

# ---- 6. parse-only keeps the measurements' date, device and commit ------------------------
mkdir -p "$WORK/logs"
cat >"$WORK/logs/bench.txt" <<'EOF'
device: NVIDIA H200, 132 SMs
device_gemm s NN m=4096 n=4096 k=4096 cudrop_ms=5.821 cudrop_tflops=23.61 cublas_ms=2.697 cublas_tflops=50.95 ratio=0.46
EOF
cat >"$WORK/logs/summary.txt" <<'EOF'
== cudrop gpu-check 2025-03-04T05:06Z on NVIDIA H200, 570.86.15
commit: 0123456789abcdef0123456789abcdef01234567
tests: 107/107 passed
EOF
"$PY" "$TOOL" --parse-only "$WORK/logs/bench.txt" --out "$WORK/logs" --plot none >/dev/null
"$PY" - "$WORK/logs" <<'EOF'
import json, os, sys
doc = json.load(open(os.path.join(sys.argv[1], "results.json")))
got = {k: doc[k] for k in ("date", "device", "device_sms", "driver", "git_commit")}
assert got == {"date": "2025-03-04T05:06Z", "device": "NVIDIA H200", "device_sms": 132, "driver": "570.86.15",
               "git_commit": "0123456789abcdef0123456789abcdef01234567"}, got
head = open(os.path.join(sys.argv[1], "results.txt")).readline()
assert head.startswith("cudrop-bench 2025-03-04T05:06Z on NVIDIA H200, commit 0123456789ab"), head
print("parse-only metadata from the raw file and summary.txt: ok")
EOF

# ---- 7. CSV times are the raw times ------------------------------------------------------
"$PY" - "$FIXTURE" "$WORK/fixture/results.csv" "$WORK/frame.txt" "$WORK/frame/results.csv" <<'EOF'
import csv, re, sys
from decimal import Decimal
def raw_times(path):
    """every raw time of the file, in ms, as Decimals: *_ms fields as written, seconds x 1000"""
    out = set()
    for line in open(path):
        for key, val in re.findall(r"(\w+)=([-+0-9.eE]+)(?=\s|$)", line):
            if key.endswith("_ms") and not key.startswith("updates_gemm") or key == "ms":
                out.add(Decimal(val))
            elif key == "seconds":
                out.add(Decimal(val) * 1000)
    return out
for raw, table in ((sys.argv[1], sys.argv[2]), (sys.argv[3], sys.argv[4])):
    times = raw_times(raw)
    rows = list(csv.DictReader(open(table)))
    for r in rows:
        assert Decimal(r["ms"]) in times, (r["implementation"], r["shape"], r["ms"])
ms = {(r["implementation"], r["n"]): r["ms"] for r in csv.DictReader(open(sys.argv[4]))}
assert ms[("cudrop_e2e", "64")] == "0.459" and ms[("cudrop_e2e", "8192")] == "68.872", ms
assert ms[("cublas", "8192")] == "578.7", ms
print("CSV times equal the raw times: ok")
EOF
echo "bench_tool: PASS"
